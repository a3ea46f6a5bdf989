package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
)

// doctor on a contract whose service idemstress starts: it starts a
// throwaway database and the service, and makes its two calls.
func TestDoctorStartsTheService(t *testing.T) {
	t.Parallel()
	svc := sampleCommand(t)
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	yaml := string(ticketsvc.Contract) + "\nprocess:\n  command: [" + svc + ", -listen, \"127.0.0.1:{port}\", -database-url, \"{database_url}\"]\n"
	if err := os.WriteFile(contract, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := invoke(t, "doctor", "--config", contract)
	if code != exitPass || !strings.Contains(stdout, "target    ok: a call with a key got 201 with id") || !strings.Contains(stderr, "throwaway PostgreSQL") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestDoctor(t *testing.T) {
	t.Parallel()
	contract, dbURL := serveSample(t, sample.Correct, ticketsvc.LayoutKeys)
	code, stdout, stderr := invoke(t, "doctor", "--config", contract, "--database-url", dbURL)
	if code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if head := strings.SplitN(stdout, "\n", 2)[0]; head != "ok: ready to run: idemstress run --config "+contract {
		t.Errorf("first line %q; want it to say the contract is ready to run", head)
	}
	for _, want := range []string{"contract  ok: POST", "database  ok: PostgreSQL", "effects   ok: tickets: rows by tenant tenant, key request_key, id id",
		"effects   ok: notification_outbox", "target    ok: a call without a key got 400", "target    ok: a call with a key got 201 with id"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}

	tagged, taggedDB := serveSample(t, sample.Correct, ticketsvc.LayoutTagged)
	code, stdout, stderr = invoke(t, "doctor", "--config", tagged, "--database-url", taggedDB)
	if code != exitPass || !strings.Contains(stdout, "tickets: rows tagged in subject, id id") ||
		!strings.Contains(stdout, "notification_outbox: rows joined by ticket_id to tickets") {
		t.Errorf("tagged contract: exit %d\n%s%s", code, stdout, stderr)
	}

	yaml, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// key_required: false: doctor sends no call without a key, and says why.
	keyless := strings.Replace(string(yaml), "key_required: true", "key_required: false", 1)
	code, stdout, stderr = invoke(t, "doctor", "--config", write("keyless.yaml", keyless), "--database-url", dbURL)
	if code != exitPass || !strings.Contains(stdout, "target    no call without a key: the contract does not require keys") || strings.Contains(stdout, "a call without a key got") {
		t.Errorf("keys not required: exit %d\n%s%s", code, stdout, stderr)
	}

	accepting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"ticket_id": 1}`))
	}))
	defer accepting.Close()
	accepting.Config.SetKeepAlivesEnabled(false)
	svcURL := strings.Split(strings.Split(string(yaml), "url: ")[1], "\n")[0]
	uuidOnly := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error": "Idempotency-Key must be a UUID"}`))
	}))
	defer uuidOnly.Close()

	for _, tc := range []struct {
		name, yaml, db string
		code           int
		want           string
		// first, when set, is a FAIL line that must come before want's:
		// the root cause first (issue 16.6).
		first string
	}{
		{"unknown column", strings.Replace(string(yaml), "key: request_key", "key: idem_key", 1), dbURL, exitUsage, `effects   FAIL effect tables do not match`, ""},
		{"malformed YAML", "target: [", dbURL, exitUsage, "contract  FAIL", ""},
		{"unreachable database", string(yaml), "postgres://postgres@127.0.0.1:1/postgres?connect_timeout=3", exitInconclusive, "database  FAIL database unreachable", ""},
		{"a target that accepts a call without a key", strings.Replace(string(yaml), svcURL, accepting.URL+"/tickets", 1), dbURL, exitViolations, "target    FAIL a call without a key got 201 (ok)",
			"target    FAIL a call with a key: IDEM-002 missing effect"},
		{"a target that writes nothing", strings.Replace(string(yaml), svcURL, accepting.URL+"/tickets", 1), dbURL, exitViolations, "target    FAIL a call with a key: IDEM-002 missing effect", ""},
		{"a target that takes only UUID keys", strings.Replace(string(yaml), svcURL, uuidOnly.URL+"/tickets", 1), dbURL, exitViolations,
			`target    FAIL a call with a key got invalid 400: {"error": "Idempotency-Key must be a UUID"} (it sent the key "doctor`, ""},
		{"an id pointer into nothing", strings.Replace(string(yaml), "id: /ticket_id", "id: /payment/id", 1), dbURL, exitUsage, `target    FAIL target.id "/payment/id": a call with a key got 201, with no ID there: {"ticket_id":`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := invoke(t, "doctor", "--config", write("c.yaml", tc.yaml), "--database-url", tc.db)
			if code != tc.code || !strings.Contains(stdout, tc.want) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%s%s", code, tc.code, tc.want, stdout, stderr)
			}
			// The first line says what to fix first: the first FAIL.
			firstFail := tc.first
			if firstFail == "" {
				firstFail = tc.want
			}
			stage, msg, _ := strings.Cut(firstFail, "FAIL")
			head := strings.SplitN(stdout, "\n", 2)[0]
			if !strings.HasPrefix(head, "fix first: "+strings.TrimSpace(stage)+": "+strings.TrimSpace(msg)) {
				t.Errorf("first line %q; want it to say what to fix first: %q", head, firstFail)
			}
			if i := strings.Index(stdout, tc.first); tc.first != "" && (i < 0 || i > strings.Index(stdout, tc.want)) {
				t.Errorf("%q does not come before %q:\n%s", tc.first, tc.want, stdout)
			}
		})
	}
}
