package shapes_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/testbed/apitest"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// computeSvc is a Compute-Engine-like insert: the key is a requestId in
// the query, the project a path segment, and the instance's name a second
// unique field: a requestId seen before returns the original operation
// whatever the body (no fingerprint), another requestId with a name an
// instance already has is 409 alreadyExists. The requestId is optional,
// as Compute's is: an insert without one is a plain create (its row's
// request_id NULL). bug plants one mistake:
//   - names-not-unique: the name is not kept unique, so another
//     request's instance of an existing name is created;
//   - name-race: a concurrent duplicate of a request that loses the race
//     on the name's index (PostgreSQL's ON CONFLICT handles only the
//     requestId's) is refused alreadyExists, its own name taken from it.
type computeSvc struct {
	bug  string
	pool *pgxpool.Pool
}

// serveCompute starts the service on a loopback port over a new database
// and returns its base URL and database URL.
func serveCompute(t *testing.T, bug string) (url, dbURL string) {
	t.Helper()
	dbURL = pgtest.NewDatabase(t, cluster)
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	names := ", CONSTRAINT instance_name UNIQUE (project, name)"
	if bug == "names-not-unique" {
		names = ""
	}
	if _, err := pool.Exec(t.Context(), `CREATE TABLE instances (id bigserial PRIMARY KEY, project text NOT NULL,
		request_id text, name text NOT NULL, description text NOT NULL, UNIQUE (project, request_id)`+names+`)`); err != nil {
		t.Fatal(err)
	}
	return apitest.Serve(t, &computeSvc{bug: bug, pool: pool}), dbURL
}

func (s *computeSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// /compute/v1/projects/{project}/zones/{zone}/instances?requestId=…
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if r.Method != http.MethodPost || len(parts) != 7 || parts[2] != "projects" || parts[6] != "instances" {
		s.fail(w, http.StatusNotFound, "notFound")
		return
	}
	project, requestID := parts[3], r.URL.Query().Get("requestId")
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var inst struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &inst)
	}
	if err != nil || inst.Name == "" {
		s.fail(w, http.StatusBadRequest, "invalid")
		return
	}
	var id int64
	err = s.pool.QueryRow(r.Context(), `INSERT INTO instances (project, request_id, name, description) VALUES ($1, NULLIF($2, ''), $3, $4)
		ON CONFLICT (project, request_id) DO NOTHING RETURNING id`, project, requestID, inst.Name, inst.Description).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		// The requestId was seen: the original operation, whatever the body.
		err = s.pool.QueryRow(r.Context(), `SELECT id FROM instances WHERE project = $1 AND request_id = $2`, project, requestID).Scan(&id)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.ConstraintName == "instance_name" && s.bug != "name-race" {
		// A concurrent duplicate of the request may have taken the name:
		// it has committed by now, so look for it first.
		if e := s.pool.QueryRow(r.Context(), `SELECT id FROM instances WHERE project = $1 AND request_id = $2`, project, requestID).Scan(&id); e == nil {
			err = nil
		}
	}
	switch {
	case errors.As(err, &pgErr) && pgErr.ConstraintName == "instance_name":
		s.fail(w, http.StatusConflict, "alreadyExists")
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"compute#operation","operationType":"insert","status":"RUNNING","targetId":"%d"}`, id)
	}
}

func (s *computeSvc) fail(w http.ResponseWriter, code int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"error":{"code":%d,"errors":[{"reason":%q,"domain":"global"}]}}`, code, reason)
}
