package google_test

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/testbed/apitest"
)

// googleSvc creates Compute-Engine-like instances the way AIP-155 and
// Compute Engine's requestId document it: POST
// /v1/projects/{project}/instances?requestId=<uuid>. The requestId must be
// a UUID and the project ID lowercase (400 INVALID_ARGUMENT otherwise).
// Every answer is an Operation, a new one each time (its name and status
// change between calls), that names the instance it created (targetId);
// a later request with the same requestId in the project gets an
// Operation naming the original instance, whatever its body (no
// fingerprint: the request is "a duplicate" and its result is returned).
// The instance row carries its project and requestId, unique together,
// inserted in one statement: a concurrent duplicate waits on the first
// one's row, then reads it.
type googleSvc struct {
	pool *pgxpool.Pool
	// bug plants one mistake: check-then-insert (looks the requestId up,
	// then inserts, with no constraint), tenant-leak (requestIds unique
	// across projects: another project's duplicate gets the first
	// project's instance), new-instance-on-change (a changed body under a
	// used requestId creates a second instance: the requestId is keyed
	// with the body, as if it were a fingerprint).
	bug string
}

const googleSchema = `CREATE TABLE instances (
	id bigserial PRIMARY KEY,
	project text NOT NULL,
	request_id text NOT NULL,
	body_hash text NOT NULL,
	name text NOT NULL,
	machine_type text NOT NULL
)`

// googleKeys is the uniqueness each mode keeps (check-then-insert has none).
var googleKeys = map[string]string{"": "project, request_id", "tenant-leak": "request_id", "new-instance-on-change": "project, request_id, body_hash"}

// startGoogle serves a googleSvc in mode bug over a new database and
// returns its base URL, its database URL and a pool over it.
func startGoogle(t *testing.T, bug string) (string, string, *pgxpool.Pool) {
	t.Helper()
	schema := googleSchema
	if cols, ok := googleKeys[bug]; ok {
		schema += fmt.Sprintf(";\nCREATE UNIQUE INDEX instances_request ON instances (%s)", cols)
	}
	pool, dbURL := apitest.Database(t, cluster, schema)
	return apitest.Serve(t, &googleSvc{pool: pool, bug: bug}), dbURL, pool
}

var (
	googlePath = regexp.MustCompile(`^/v1/projects/([^/]+)/instances$`)
	// A project ID: 6 to 30 lowercase letters, digits and hyphens, a letter first.
	projectID = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]$`)
	// An instance name is an RFC 1035 label.
	instanceName = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
	uuidText     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	machineTypes = []string{"e2-micro", "e2-small", "e2-medium", "e2-standard-2"}
)

type instance struct {
	Name        string `json:"name"`
	MachineType string `json:"machineType"`
}

func (s *googleSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := googlePath.FindStringSubmatch(r.URL.Path)
	if r.Method != http.MethodPost || m == nil {
		googleError(w, http.StatusNotFound, "NOT_FOUND", "The requested URL was not found on this server.")
		return
	}
	project := m[1]
	if !projectID.MatchString(project) {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("Invalid value for field 'project': '%s'. Must be a match of regex '[a-z](?:[-a-z0-9]{4,28}[a-z0-9])'", project))
		return
	}
	requestID := r.URL.Query().Get("requestId")
	if !uuidText.MatchString(requestID) {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("Invalid value for field 'requestId': '%s'. The request ID must be a valid UUID.", requestID))
		return
	}
	var in instance
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received. "+err.Error())
		return
	}
	if msg := in.invalid(); msg != "" {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", msg)
		return
	}
	id, err := s.insert(r, project, requestID, in)
	if err != nil {
		googleError(w, http.StatusInternalServerError, "INTERNAL", "Internal error. "+err.Error())
		return
	}
	s.operation(w, project, in.Name, id)
}

func (in instance) invalid() string {
	switch {
	case !instanceName.MatchString(in.Name):
		return fmt.Sprintf("Invalid value for field 'resource.name': '%s'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'", in.Name)
	case !slices.Contains(machineTypes, in.MachineType):
		return fmt.Sprintf("Invalid value for field 'resource.machineType': '%s'. Machine type does not exist.", in.MachineType)
	}
	return ""
}

// insert creates the instance unless the requestId already made one, and
// returns the instance's ID either way.
func (s *googleSvc) insert(r *http.Request, project, requestID string, in instance) (id int64, err error) {
	ctx := r.Context()
	canonical, _ := json.Marshal(in)
	hash := fmt.Sprintf("%x", sha256.Sum256(canonical))
	// The instance a requestId made: in its project, unless the bug
	// looks it up otherwise.
	lookup := func() error {
		q, args := `SELECT id FROM instances WHERE project = $1 AND request_id = $2`, []any{project, requestID}
		switch s.bug {
		case "tenant-leak":
			q, args = `SELECT id FROM instances WHERE request_id = $1`, []any{requestID}
		case "new-instance-on-change":
			q, args = `SELECT id FROM instances WHERE project = $1 AND request_id = $2 AND body_hash = $3`, []any{project, requestID, hash}
		}
		return s.pool.QueryRow(ctx, q, args...).Scan(&id)
	}
	insert := `INSERT INTO instances (project, request_id, body_hash, name, machine_type)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id`
	if s.bug == "check-then-insert" {
		if err := lookup(); !errors.Is(err, pgx.ErrNoRows) {
			return id, err
		}
	}
	err = s.pool.QueryRow(ctx, insert, project, requestID, hash, in.Name, in.MachineType).Scan(&id)
	if !errors.Is(err, pgx.ErrNoRows) {
		return id, err
	}
	// A duplicate: the instance it made is the answer.
	return id, lookup()
}

// operation answers a new Operation for the insert of instance id: a
// fresh name and start each time, the same target.
func (s *googleSvc) operation(w http.ResponseWriter, project, name string, id int64) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	op := hex.EncodeToString(b[:])
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"kind":          "compute#operation",
		"id":            fmt.Sprint(uint64(b[0])<<8 | uint64(b[1])),
		"name":          "operation-" + op,
		"operationType": "insert",
		"status":        []string{"PENDING", "RUNNING", "DONE"}[b[2]%3],
		"targetId":      fmt.Sprint(id),
		"targetLink":    fmt.Sprintf("https://compute.example/v1/projects/%s/instances/%s", project, name),
		"selfLink":      fmt.Sprintf("https://compute.example/v1/projects/%s/operations/operation-%s", project, op),
		"progress":      int(b[3] % 101),
	})
}

// googleError answers a google.rpc.Status error, as Google APIs do.
func googleError(w http.ResponseWriter, code int, status, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": message, "status": status,
		"errors": []map[string]string{{"domain": "global", "reason": strings.ToLower(strings.ReplaceAll(status, "_", "")), "message": message}},
	}})
}
