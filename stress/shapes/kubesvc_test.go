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
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/testbed/apitest"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// kubeSvc is a Kubernetes-like create: the resource's name is its key,
// carried in the body (metadata.name), the namespace is a path segment,
// and any second POST of a name is refused with 409 AlreadyExists naming
// the object, whatever its body: no fingerprint. bug plants one mistake:
//   - update-on-changed: a changed body overwrites the stored fields (the
//     create acts like an apply) and is still answered AlreadyExists;
//   - new-on-changed: names are unique only with their body, so a changed
//     body creates a second object of the name.
type kubeSvc struct {
	bug  string
	pool *pgxpool.Pool
}

// serveKube starts the service on a loopback port over a new database and
// returns its base URL and database URL.
func serveKube(t *testing.T, bug string) (url, dbURL string) {
	t.Helper()
	dbURL = pgtest.NewDatabase(t, cluster)
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	unique := "UNIQUE (namespace, name)"
	if bug == "new-on-changed" {
		unique = "UNIQUE (namespace, name, body)"
	}
	if _, err := pool.Exec(t.Context(), `CREATE TABLE configmaps (uid bigserial PRIMARY KEY, namespace text NOT NULL,
		name text NOT NULL, body text NOT NULL, note text NOT NULL, `+unique+`)`); err != nil {
		t.Fatal(err)
	}
	return apitest.Serve(t, &kubeSvc{bug: bug, pool: pool}), dbURL
}

func (s *kubeSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// /api/v1/namespaces/{namespace}/configmaps
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if r.Method != http.MethodPost || len(parts) != 5 || parts[0] != "api" || parts[2] != "namespaces" || parts[4] != "configmaps" {
		s.status(w, http.StatusNotFound, "NotFound", "")
		return
	}
	namespace := parts[3]
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var obj struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Data struct {
			Note string `json:"note"`
		} `json:"data"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &obj)
	}
	if err != nil || obj.Metadata.Name == "" {
		s.status(w, http.StatusUnprocessableEntity, "Invalid", "")
		return
	}
	name, body := obj.Metadata.Name, canonical(raw)
	err = s.pool.QueryRow(r.Context(), `INSERT INTO configmaps (namespace, name, body, note) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING RETURNING name`, namespace, name, body, obj.Data.Note).Scan(&name)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if s.bug == "update-on-changed" {
			_, err = s.pool.Exec(r.Context(), `UPDATE configmaps SET note = $3, body = $4 WHERE namespace = $1 AND name = $2`,
				namespace, name, obj.Data.Note, body)
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		s.status(w, http.StatusConflict, "AlreadyExists", name)
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		out, _ := json.Marshal(map[string]any{"kind": "ConfigMap", "metadata": map[string]string{"name": name, "namespace": namespace},
			"data": map[string]string{"note": obj.Data.Note}})
		_, _ = w.Write(out)
	}
}

// status answers a Kubernetes Status object.
func (s *kubeSvc) status(w http.ResponseWriter, code int, reason, name string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	st := map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "code": code,
		"message": fmt.Sprintf("configmaps %q: %s", name, reason)}
	if name != "" {
		st["details"] = map[string]string{"name": name, "kind": "configmaps"}
	}
	out, _ := json.Marshal(st)
	_, _ = w.Write(out)
}
