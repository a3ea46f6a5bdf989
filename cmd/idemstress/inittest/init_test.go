package inittest_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/cmd/idemstress/internal/built"
	"github.com/idemstress/idemstress/examples/paysvc"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// Exit codes of the command.
const (
	exitPass       = 0
	exitViolations = 1
)

// idemstress is the built command (see package built).
func idemstress(t *testing.T) string { return built.Idemstress(t) }

// invoke runs the built command, with its cases in a directory of the test.
func invoke(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	if args[0] == "run" {
		args = append([]string{"run", "--cases", t.TempDir()}, args[1:]...)
	}
	cmd := exec.CommandContext(t.Context(), idemstress(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "DATABASE_URL=")
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// switched serves the correct service until the test flips it to the
// buggy one, at the same address and over the same database: the contract
// init drafted against the first meets the second with no edit.
type switched struct {
	bug            atomic.Bool
	correct, buggy http.Handler
}

func (s *switched) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.bug.Load() {
		s.buggy.ServeHTTP(w, r)
		return
	}
	s.correct.ServeHTTP(w, r)
}

func servicePool(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	dbURL := pgtest.NewDatabase(t, cluster)
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 40 // room for the largest burst
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, dbURL
}

// initThenRun drafts a contract with init against the correct service,
// then runs it unedited: 100 plans pass on the correct service, and the
// buggy one is caught by the check named.
func initThenRun(t *testing.T, s *switched, dbURL, check string, initArgs ...string) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	args := append([]string{"init", "--out", contract, "--database-url", dbURL}, initArgs...)
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "SERVER", srv.URL)
	}
	code, stdout, stderr := invoke(t, args...)
	text, _ := os.ReadFile(contract)
	if code != exitPass {
		t.Fatalf("init: exit %d\n%s%s\n%s", code, stdout, stderr, text)
	}
	if first := strings.SplitN(stdout, "\n", 2)[0]; !strings.HasPrefix(first, "ok") {
		t.Errorf("doctor's first line %q does not say all is well", first)
	}
	code, stdout, stderr = invoke(t, "run", "--config", contract, "--database-url", dbURL, "--plans", "100", "--seed", "7")
	if code != exitPass {
		t.Fatalf("run on the correct service: exit %d\n%s%s\n%s", code, stdout, stderr, text)
	}
	s.bug.Store(true)
	code, stdout, stderr = invoke(t, "run", "--config", contract, "--database-url", dbURL, "--plans", "100", "--seed", "7", "--max-bugs", "1")
	if code != exitViolations || !strings.Contains(stdout, check) {
		t.Errorf("run on the buggy service: exit %d, want 1 with %s\n%s%s\n%s", code, check, stdout, stderr, text)
	}
	return string(text)
}

// init against the ticket sample with no OpenAPI document: the request
// from the flags, the effects from what one create call wrote, the
// channel's variant refused and so fixed.
func TestInitTicketsWithoutOpenAPI(t *testing.T) {
	pool, dbURL := servicePool(t)
	if err := ticketsvc.Migrate(t.Context(), pool, ticketsvc.LayoutKeys); err != nil {
		t.Fatal(err)
	}
	correct, err := ticketsvc.New(pool, ticketsvc.Options{Layout: ticketsvc.LayoutKeys})
	if err != nil {
		t.Fatal(err)
	}
	buggy, err := ticketsvc.New(pool, ticketsvc.Options{Layout: ticketsvc.LayoutKeys, Bug: "outbox-on-retry"})
	if err != nil {
		t.Fatal(err)
	}
	text := initThenRun(t, &switched{correct: correct, buggy: buggy}, dbURL, "IDEM-001",
		"--url", "SERVER/tickets", "--header", "Idempotency-Key: {{key}}", "--header", "X-Tenant: {{tenant}}",
		"--payload", `{"subject": "Printer offline", "priority": 3, "channel": "email"}`)
	for _, want := range []string{"id: /ticket_id", "table: tickets", "tenant: tenant", "key: request_key", "subject: /subject",
		"table: notification_outbox", "references: {column: ticket_id, table: tickets}", "/channel: fixed # guessed: the service refused"} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft lacks %q:\n%s", want, text)
		}
	}
}

// init against the payments sample from its OpenAPI document: the key in
// the body, the merchant in the path, rules from the schema, refusals told
// apart by their documented codes.
func TestInitPaymentsFromOpenAPI(t *testing.T) {
	pool, dbURL := servicePool(t)
	if err := paysvc.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	correct, err := paysvc.New(pool, paysvc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	buggy, err := paysvc.New(pool, paysvc.Options{Bug: "replay-changed"})
	if err != nil {
		t.Fatal(err)
	}
	text := initThenRun(t, &switched{correct: correct, buggy: buggy}, dbURL, "IDEM-004",
		"--openapi", "../../../examples/paysvc/openapi.yaml", "--operation", "createPayment", "--url", "SERVER")
	for _, want := range []string{"/v2/merchants/{{tenant}}/payments", "idempotency_key: '{{key}}'", "id: /payment/id",
		"/amount_money/amount: {int: {max: 100000000, min: 1}}", "equals: {/errors/0/code: IDEMPOTENCY_KEY_REUSED}",
		"table: payments", "tenant: merchant", "join: {column: payment_id, table: payments}"} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft lacks %q:\n%s", want, text)
		}
	}
}
