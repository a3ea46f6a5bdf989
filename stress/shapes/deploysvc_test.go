package shapes_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/stress"
)

// deploySvc is a Kubernetes-flavoured create behind an idempotency
// middleware: POST /apis/apps/v1/namespaces/{namespace}/deployments with
// an Idempotency-Key header, the namespace and metadata.name lower-case
// DNS-1123 labels (a name that is not one is a 422 Invalid, as the API
// server answers). The key lives in the middleware's own table, inserted
// first in the deployment's transaction; the deployments table keeps no
// key, so its rows are attributed by the action tag the contract puts in
// metadata.name.
type deploySvc struct{ pool *pgxpool.Pool }

var dnsLabelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

func (s *deploySvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/apis/apps/v1/namespaces/"), "/")
	if r.Method != http.MethodPost || len(parts) != 2 || parts[1] != "deployments" {
		k8sStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	namespace, key := parts[0], r.Header.Get("Idempotency-Key")
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var d struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Replicas int `json:"replicas"`
		} `json:"spec"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &d)
	}
	switch {
	case err != nil:
		k8sStatus(w, http.StatusBadRequest, "BadRequest", "the body is not a deployment")
	case key == "":
		k8sStatus(w, http.StatusBadRequest, "BadRequest", "Idempotency-Key is required")
	case !dnsLabelRE.MatchString(namespace):
		k8sStatus(w, http.StatusUnprocessableEntity, "Invalid", fmt.Sprintf("namespace %q is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'", namespace))
	case !dnsLabelRE.MatchString(d.Metadata.Name):
		k8sStatus(w, http.StatusUnprocessableEntity, "Invalid", fmt.Sprintf("Deployment.apps %q is invalid: metadata.name: Invalid value: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'", d.Metadata.Name))
	default:
		id, err := s.create(r.Context(), namespace, key, canonical(raw), d.Metadata.Name, d.Spec.Replicas)
		switch {
		case errors.Is(err, errReused):
			k8sStatus(w, http.StatusConflict, "Conflict", "Idempotency-Key reused with another deployment")
		case err != nil:
			k8sStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"kind":"Deployment","metadata":{"name":%q,"namespace":%q,"uid":"%d"}}`, d.Metadata.Name, namespace, id)
		}
	}
}

// create records the key first: a concurrent duplicate waits on its row,
// then reads what the first one made.
func (s *deploySvc) create(ctx context.Context, namespace, key, body, name string, replicas int) (int64, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after a commit, a no-op
	tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (namespace, key, body) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, namespace, key, body)
	if err != nil {
		return 0, err
	}
	var id int64
	if tag.RowsAffected() == 0 {
		if err := tx.Rollback(ctx); err != nil {
			return 0, err
		}
		var stored string
		if err := s.pool.QueryRow(ctx, `SELECT body, deployment_id FROM idempotency_keys WHERE namespace = $1 AND key = $2`, namespace, key).Scan(&stored, &id); err != nil {
			return 0, err
		}
		if stored != body {
			return 0, errReused
		}
		return id, nil
	}
	if err := tx.QueryRow(ctx, `INSERT INTO deployments (namespace, name, replicas) VALUES ($1, $2, $3) RETURNING id`, namespace, name, replicas).Scan(&id); err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `UPDATE idempotency_keys SET deployment_id = $3 WHERE namespace = $1 AND key = $2`, namespace, key, id); err != nil {
		return 0, err
	}
	return id, tx.Commit(ctx)
}

func k8sStatus(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":%q,"reason":%q,"code":%d}`, message, reason, code)
}

const deploySchema = `CREATE TABLE idempotency_keys (namespace text NOT NULL, key text NOT NULL, body text NOT NULL, deployment_id bigint, PRIMARY KEY (namespace, key));
CREATE TABLE deployments (id bigserial PRIMARY KEY, namespace text NOT NULL, name text NOT NULL, replicas int NOT NULL)`

const deployContract = `target:
  url: "%s/apis/apps/v1/namespaces/{{tenant}}/deployments"
  headers:
    Idempotency-Key: "{{key}}"
  id: /metadata/uid
payload:
  metadata: {name: "{{tag}}"}
  spec: {replicas: 2}
payload_rules:
  /spec/replicas: {int: {min: 1, max: 10}}
statuses: {conflict: [409], in_flight: [429], invalid: [400]}
effects:
  - table: deployments
    tag: name
    tenant: namespace
    id: id
    per_action: 1
    fields: {replicas: /spec/replicas}
`

func startDeploy(t *testing.T, extra string, plans int) stress.Config {
	t.Helper()
	url := pgtest.NewDatabase(t, cluster)
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), deploySchema); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&deploySvc{pool: pool})
	t.Cleanup(srv.Close)
	cfg, err := stress.Parse("deploy.yaml", []byte(fmt.Sprintf(deployContract, srv.URL)+extra))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL, cfg.Plans, cfg.Seed = url, plans, 5
	return cfg
}

// The action tag in a DNS-label field (metadata.name) under tag_format:
// dns-label, the namespace a DNS label too: the correct service passes,
// its rows attributed by the tag; without tag_format, the run ends in a
// contract error that names the refused tag and the field to set.
func TestTagInADNSLabelField(t *testing.T) {
	t.Parallel()
	cfg := startDeploy(t, "tenant_format: dns-label\ntag_format: dns-label\n", 100)
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass {
		logFailures(t, res)
		t.Fatalf("verdict %s (%v); want a pass", res.Verdict, res.Err)
	}
	if res.Calls < 100 {
		t.Fatalf("%d calls; want the plans to have run", res.Calls)
	}
	t.Logf("%d plans, %d calls", res.Plans, res.Calls)
	cfg = startDeploy(t, "tenant_format: dns-label\n", 20)
	_, err = stress.Run(t.Context(), cfg)
	if !errors.Is(err, contract.ErrContract) {
		t.Fatalf("err %v; want a contract error", err)
	}
	for _, w := range []string{"tag_format: the service refused every tag", "metadata.name", "tag_format: dns-label"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err %v\nwant it to say %q", err, w)
		}
	}
}
