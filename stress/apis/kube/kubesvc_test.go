package kube_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/testbed/apitest"
)

// kubeSvc is a Kubernetes-like API server for one namespaced kind, as the
// API conventions describe a create: POST
// /api/v1/namespaces/{namespace}/things with the object, whose
// metadata.name (a DNS-1123 label) names it within its namespace. The
// name is the natural key: a create whose name is taken, same object or
// not, is refused 409 with a Status of reason AlreadyExists naming it in
// details.name, and changes nothing. Namespaces must exist (the server
// has three); an invalid object is 422, reason Invalid. The object's row
// is inserted in one statement, unique per namespace and name: a
// concurrent create of the name waits on the first one's row, then is
// refused.
type kubeSvc struct {
	pool *pgxpool.Pool
	// bug plants one mistake: check-then-insert (looks the name up, then
	// inserts, with no constraint), tenant-leak (names unique across
	// namespaces: the name taken in one refuses it in another), upsert
	// (a second create of the name overwrites the stored spec, as an
	// apply would, and is still answered 409 AlreadyExists).
	bug string
}

const kubeSchema = `CREATE TABLE namespaces (name text PRIMARY KEY, uid uuid NOT NULL DEFAULT gen_random_uuid());
INSERT INTO namespaces (name) VALUES ('team-a'), ('team-b'), ('team-c');
CREATE TABLE things (
	namespace text NOT NULL REFERENCES namespaces,
	name text NOT NULL,
	uid uuid NOT NULL DEFAULT gen_random_uuid(),
	resource_version bigserial,
	created timestamptz NOT NULL DEFAULT now(),
	replicas bigint NOT NULL,
	color text NOT NULL
)`

// kubeKeys is the uniqueness each mode keeps (check-then-insert has none).
var kubeKeys = map[string]string{"": "namespace, name", "tenant-leak": "name", "upsert": "namespace, name"}

// startKube serves a kubeSvc in mode bug over a new database and returns
// its base URL, its database URL and a pool over it.
func startKube(t *testing.T, bug string) (string, string, *pgxpool.Pool) {
	t.Helper()
	schema := kubeSchema
	if cols, ok := kubeKeys[bug]; ok {
		schema += fmt.Sprintf(";\nCREATE UNIQUE INDEX things_name ON things (%s)", cols)
	}
	pool, dbURL := apitest.Database(t, cluster, schema)
	return apitest.Serve(t, &kubeSvc{pool: pool, bug: bug}), dbURL, pool
}

var (
	kubePath  = regexp.MustCompile(`^/api/v1/namespaces/([^/]+)/things$`)
	dns1123   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	colors    = []string{"blue", "green", "red"}
	errExists = errors.New("already exists")
)

type thing struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name              string `json:"name,omitempty"`
		Namespace         string `json:"namespace,omitempty"`
		UID               string `json:"uid,omitempty"`
		ResourceVersion   string `json:"resourceVersion,omitempty"`
		CreationTimestamp string `json:"creationTimestamp,omitempty"`
	} `json:"metadata"`
	Spec struct {
		Replicas int64  `json:"replicas"`
		Color    string `json:"color"`
	} `json:"spec"`
}

func (s *kubeSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := kubePath.FindStringSubmatch(r.URL.Path)
	if r.Method != http.MethodPost || m == nil {
		kubeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource", "")
		return
	}
	ns := m[1]
	var exists bool
	if err := s.pool.QueryRow(r.Context(), `SELECT EXISTS (SELECT 1 FROM namespaces WHERE name = $1)`, ns).Scan(&exists); err != nil {
		kubeStatus(w, http.StatusInternalServerError, "InternalError", err.Error(), "")
		return
	} else if !exists {
		kubeStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("namespaces %q not found", ns), "")
		return
	}
	var obj thing
	if err := json.NewDecoder(r.Body).Decode(&obj); err != nil {
		kubeStatus(w, http.StatusBadRequest, "BadRequest", "the object provided is unrecognized: "+err.Error(), "")
		return
	}
	if obj.Metadata.Namespace != "" && obj.Metadata.Namespace != ns {
		kubeStatus(w, http.StatusBadRequest, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request", "")
		return
	}
	if msg := obj.invalid(); msg != "" {
		kubeStatus(w, http.StatusUnprocessableEntity, "Invalid", fmt.Sprintf("Thing %q is invalid: %s", obj.Metadata.Name, msg), obj.Metadata.Name)
		return
	}
	obj.Metadata.Namespace = ns
	switch err := s.create(r, &obj); {
	case errors.Is(err, errExists):
		kubeStatus(w, http.StatusConflict, "AlreadyExists", fmt.Sprintf("things %q already exists", obj.Metadata.Name), obj.Metadata.Name)
	case err != nil:
		kubeStatus(w, http.StatusInternalServerError, "InternalError", err.Error(), "")
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(obj)
	}
}

func (obj thing) invalid() string {
	switch name := obj.Metadata.Name; {
	case obj.APIVersion != "v1" || obj.Kind != "Thing":
		return "apiVersion, kind: Invalid value: want v1, Thing"
	case name == "":
		return "metadata.name: Required value: name or generateName is required"
	case len(name) > 63 || !dns1123.MatchString(name):
		return fmt.Sprintf("metadata.name: Invalid value: %q: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", name)
	case obj.Spec.Replicas < 1 || obj.Spec.Replicas > 10:
		return fmt.Sprintf("spec.replicas: Invalid value: %d: must be between 1 and 10", obj.Spec.Replicas)
	case !slices.Contains(colors, obj.Spec.Color):
		return fmt.Sprintf("spec.color: Unsupported value: %q: supported values: %q", obj.Spec.Color, colors)
	}
	return ""
}

// create stores the object, fills in its server-set metadata, or says
// the name is taken.
func (s *kubeSvc) create(r *http.Request, obj *thing) error {
	ctx, md := r.Context(), &obj.Metadata
	if s.bug == "check-then-insert" {
		var taken bool
		if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM things WHERE namespace = $1 AND name = $2)`, md.Namespace, md.Name).Scan(&taken); err != nil || taken {
			return cmp.Or(err, errExists)
		}
	}
	conflict := "DO NOTHING"
	if s.bug == "upsert" {
		conflict = "(namespace, name) DO UPDATE SET replicas = EXCLUDED.replicas, color = EXCLUDED.color"
	}
	var created time.Time
	var rv int64
	var updated bool
	// xmax <> 0 tells a row the upsert updated from one it inserted.
	err := s.pool.QueryRow(ctx, `INSERT INTO things (namespace, name, replicas, color) VALUES ($1, $2, $3, $4)
		ON CONFLICT `+conflict+` RETURNING uid::text, resource_version, created, xmax <> 0`, md.Namespace, md.Name, obj.Spec.Replicas, obj.Spec.Color).
		Scan(&md.UID, &rv, &created, &updated)
	if errors.Is(err, pgx.ErrNoRows) || updated {
		return errExists
	}
	md.ResourceVersion, md.CreationTimestamp = fmt.Sprint(rv), created.UTC().Format(time.RFC3339)
	return err
}

// kubeStatus answers a metav1.Status failure.
func kubeStatus(w http.ResponseWriter, code int, reason, message, name string) {
	details := map[string]any{}
	if name != "" {
		details = map[string]any{"name": name, "kind": "things"}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "details": details, "code": code,
	})
}
