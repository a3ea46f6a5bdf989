package shapes_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/stress"
)

// uuidComputeSvc is a Google-Compute-like create: POST
// /compute/v1/projects/{project}/instances?requestId=…, where the project
// is a lower-case DNS label and the requestId a UUID, each refused with 400
// INVALID_ARGUMENT before anything else, as Compute Engine does. The
// request ID is kept in a uuid column, inserted first (key-first, correct
// under bursts); a reused request ID with another body is a 422.
type uuidComputeSvc struct {
	pool *pgxpool.Pool
	// bug, when set, plants one mistake: "global-keys" looks request IDs
	// up across projects (a tenant leak).
	bug string
	// token takes an AWS-like client token instead of a UUID: printable
	// ASCII, at most 64 characters, kept in a text column.
	token bool
}

var (
	// What Compute Engine takes: a UUID in either case, not the zero one;
	// a project ID in lower case.
	uuidRE    = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	tokenRE   = regexp.MustCompile(`^[\x21-\x7e]{1,64}$`)
	projectRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
	pathRE    = regexp.MustCompile(`^/compute/v1/projects/([^/]+)/instances$`)
)

func (s *uuidComputeSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := pathRE.FindStringSubmatch(r.URL.Path)
	if r.Method != http.MethodPost || m == nil {
		googleError(w, http.StatusNotFound, "NOT_FOUND", "The requested URL was not found")
		return
	}
	project, requestID := m[1], r.URL.Query().Get("requestId")
	switch {
	case !projectRE.MatchString(project):
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("Invalid value for field 'project': '%s'. Must be a match of regex '[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?'", project))
		return
	case requestID == "":
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Required field 'requestId' not specified")
		return
	case s.token && !tokenRE.MatchString(requestID):
		googleError(w, http.StatusBadRequest, "ValidationException", fmt.Sprintf("1 validation error detected: Value '%s' at 'clientToken' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\x21-\\x7e]{1,64}", requestID))
		return
	case !s.token && (!uuidRE.MatchString(requestID) || strings.Trim(requestID, "0-") == ""):
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("Invalid value for field 'requestId': '%s'. The request ID must be a valid UUID", requestID))
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var body struct {
		Name string `json:"name"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil || body.Name == "" {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid value for field 'resource.name'")
		return
	}
	id, err := s.insert(r, project, requestID, canonical(raw), body.Name)
	switch {
	case errors.Is(err, errReused):
		googleError(w, http.StatusUnprocessableEntity, "FAILED_PRECONDITION", "requestId reused with another request")
	case err != nil:
		googleError(w, http.StatusInternalServerError, "INTERNAL", err.Error())
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"compute#operation","id":%q,"targetLink":"projects/%s/instances/%s"}`, strconv.FormatInt(id, 10), project, body.Name)
	}
}

func (s *uuidComputeSvc) insert(r *http.Request, project, requestID, body, name string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(r.Context(), `INSERT INTO instances (project, request_id, body, name) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING RETURNING id`, project, requestID, body, name).Scan(&id)
	if !errors.Is(err, pgx.ErrNoRows) {
		return id, err
	}
	var stored string
	lookup := `SELECT id, body FROM instances WHERE project = $1 AND request_id = $2`
	if s.bug == "global-keys" {
		lookup = `SELECT id, body FROM instances WHERE $1 <> '' AND request_id = $2`
	}
	if err := s.pool.QueryRow(r.Context(), lookup, project, requestID).Scan(&id, &stored); err != nil {
		return 0, err
	}
	if stored != body {
		return id, errReused
	}
	return id, nil
}

func googleError(w http.ResponseWriter, status int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q}}`, status, message, reason)
}

// The request ID in a uuid column, with an index of its own: the key's
// rows are found by a range of UUIDs.
const uuidComputeSchema = `CREATE TABLE instances (
	id bigserial PRIMARY KEY,
	project text NOT NULL,
	request_id uuid NOT NULL,
	body text NOT NULL,
	name text NOT NULL,
	UNIQUE (project, request_id));
CREATE INDEX instances_request_id ON instances (request_id)`

// uuidComputeContract is the contract a user would write for uuidComputeSvc;
// extra is appended to it.
const uuidComputeContract = `target:
  url: "%s/compute/v1/projects/{{tenant}}/instances?requestId={{key}}"
  id: /id
payload:
  name: web
effects:
  - table: instances
    tenant: project
    key: request_id
    id: id
    per_action: 1
    fields: {name: /name}
`

func startUUIDCompute(t *testing.T, bug string, token bool, extra string, plans int) stress.Config {
	t.Helper()
	url := pgtest.NewDatabase(t, cluster)
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	schema := uuidComputeSchema
	if bug == "global-keys" {
		schema = strings.Replace(schema, "UNIQUE (project, request_id)", "UNIQUE (request_id)", 1)
	}
	if token {
		schema = strings.Replace(schema, "request_id uuid", "request_id text", 1)
	}
	if _, err := pool.Exec(t.Context(), schema); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&uuidComputeSvc{pool: pool, bug: bug, token: token})
	t.Cleanup(srv.Close)
	cfg, err := stress.Parse("compute.yaml", []byte(fmt.Sprintf(uuidComputeContract, srv.URL)+extra))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL, cfg.Plans, cfg.Seed = url, plans, 11
	return cfg
}

// With its identifiers declared (a UUID request ID; DNS-label projects,
// generated or fixed ones that exist), the correct service passes: every
// key sent is a UUID its uuid column takes, and every row is found and
// attributed, by the key alone under fixed projects, with every fault
// firing.
func TestUUIDRequestIDServicePasses(t *testing.T) {
	t.Parallel()
	for _, tenants := range []string{"tenant_format: dns-label\n", "tenants: [web-prod, web-staging, batch]\n"} {
		faults := []model.Fault{model.FaultLoseReply, model.FaultDropRequest, model.FaultDoubleDelivery, model.FaultDBError}
		cfg := startUUIDCompute(t, "", false, "key_format: uuid\nfaults: [lose-reply, drop-request, double-delivery, db-error]\n"+tenants, 100)
		res, err := stress.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != checks.Pass {
			logFailures(t, res)
			t.Fatalf("%s: verdict %s (%v); want a pass", tenants, res.Verdict, res.Err)
		}
		assertAllFired(t, res, faults)
		if res.Calls < 100 {
			t.Fatalf("%d calls; want the plans to have run", res.Calls)
		}
	}
}

// The same service with request IDs unique across projects is caught
// leaking one project's instance to another (IDEM-007): rows keyed by
// UUID are attributed to their project's action, a generated project or
// a fixed one.
func TestUUIDRequestIDLeakCaught(t *testing.T) {
	t.Parallel()
	for _, tenants := range []string{"tenant_format: dns-label\n", "tenants: [web-prod, web-staging]\n"} {
		cfg := startUUIDCompute(t, "global-keys", false, "key_format: uuid\n"+tenants, 100)
		cfg.MaxBugs = 1
		res, err := stress.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != checks.Fail || res.Failures[0].Check != checks.TenantLeak {
			logFailures(t, res)
			t.Fatalf("%s: verdict %s (%v); want IDEM-007 first", tenants, res.Verdict, res.Err)
		}
	}
}

// Without them, the run ends in a contract error that names the refused
// key (or tenant) and the field to set, not the URL.
func TestRefusedIdentifierNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, extra string
		want        []string
	}{
		{"key", "tenant_format: dns-label\n", []string{"key_format: the service refused every key", `"is`, "requestId", "key_format: uuid"}},
		{"tenant", "key_format: uuid\n", []string{"tenant_format: the service refused every tenant", "'project'", "tenant_format: dns-label", "tenants:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := startUUIDCompute(t, "", false, tc.extra, 20)
			res, err := stress.Run(t.Context(), cfg)
			if !errors.Is(err, contract.ErrContract) {
				if res != nil {
					logFailures(t, res)
				}
				t.Fatalf("err %v; want a contract error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %v\nwant it to say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "target.url") {
				t.Errorf("err %v\nwant it not to blame target.url", err)
			}
		})
	}
}

// An AWS-like client token (printable ASCII, at most 64): under the
// default format the keys of other shapes (a no-break space, a kappa, 255
// characters) are refused while plain ones pass, which is a contract
// finding that names the key and key_pattern; with the token's pattern
// declared, only the shapes inside it are drawn and the service passes.
func TestRefusedKeyShapeNamed(t *testing.T) {
	t.Parallel()
	cfg := startUUIDCompute(t, "", true, "tenant_format: dns-label\n", 100)
	res, err := stress.Run(t.Context(), cfg)
	if !errors.Is(err, contract.ErrContract) {
		if res != nil {
			logFailures(t, res)
		}
		t.Fatalf("err %v; want a contract error", err)
	}
	t.Log(err)
	for _, w := range []string{"key_format: the service refused the key", "key shape", "takes plain keys", "key_pattern", "clientToken"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err %v\nwant it to say %q", err, w)
		}
	}
	cfg = startUUIDCompute(t, "", true, "tenant_format: dns-label\nkey_pattern: '[\\x21-\\x7e]{1,64}'\nkey_max_len: 64\n", 100)
	res, err = stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass {
		logFailures(t, res)
		t.Fatalf("verdict %s (%v); want a pass", res.Verdict, res.Err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "key shapes not drawn") {
		t.Errorf("notes %q; want them to say which key shapes were not drawn", res.Notes)
	}
}
