package apis_test

import (
	"fmt"
	"testing"

	"github.com/idemstress/idemstress/checks"
)

// The Kubernetes-like service under idemstress: correct, it passes 100
// plans with every fault fired; each planted bug is one row, minimal.
func TestKubernetesLike(t *testing.T) {
	a1 := call("A", "k1", 0)
	runShape(t, kubeContract, func(t *testing.T, bug string) (string, string) {
		base, dbURL, _ := startKube(t, bug)
		return base, dbURL
	}, []bugCase{
		{bug: "check-then-insert", want: checks.DuplicateEffect, minimal: stepsOf(burst(a1, a1))},
		{bug: "tenant-leak", want: checks.TenantLeak, minimal: stepsOf(a1, call("B", "k1", 0))},
		{bug: "upsert", want: checks.FieldsDiffer, minimal: stepsOf(a1, a1)},
	})
}

// The service itself, by plain requests, does what the Kubernetes API
// conventions say a create does.
func TestKubernetesLikeService(t *testing.T) {
	object := func(name string, replicas int) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Thing","metadata":{"name":%q},"spec":{"replicas":%d,"color":"blue"}}`, name, replicas)
	}
	base, _, pool := startKube(t, "")
	url := func(base, ns string) string { return base + "/api/v1/namespaces/" + ns + "/things" }
	for _, bad := range []struct {
		name, ns, body, reason string
		status                 int
	}{
		{"an upper-case name", "team-a", object("Web-1", 2), "Invalid", 422},
		{"a name with a dot", "team-a", object("web.1", 2), "Invalid", 422},
		{"no name", "team-a", `{"apiVersion":"v1","kind":"Thing","metadata":{},"spec":{"replicas":2,"color":"blue"}}`, "Invalid", 422},
		{"too many replicas", "team-a", object("web-1", 11), "Invalid", 422},
		{"a namespace that does not exist", "team-z", object("web-1", 2), "NotFound", 404},
	} {
		if a := post(t, url(base, bad.ns), nil, bad.body); a.status != bad.status || a.at("/kind") != "Status" || a.at("/reason") != bad.reason {
			t.Errorf("%s: %d %s; want %d Status %s", bad.name, a.status, a.raw, bad.status, bad.reason)
		}
	}
	first := post(t, url(base, "team-a"), nil, object("web-1", 2))
	if first.status != 201 || first.at("/metadata/name") != "web-1" || first.at("/metadata/uid") == "" {
		t.Fatalf("create: %d %s", first.status, first.raw)
	}
	for _, body := range []string{object("web-1", 2), object("web-1", 3)} {
		a := post(t, url(base, "team-a"), nil, body)
		if a.status != 409 || a.at("/reason") != "AlreadyExists" || a.at("/details/name") != "web-1" {
			t.Errorf("second create %s: %d %s; want 409 AlreadyExists naming web-1", body, a.status, a.raw)
		}
	}
	if a := post(t, url(base, "team-b"), nil, object("web-1", 2)); a.status != 201 {
		t.Errorf("the name in another namespace: %d %s; want it created", a.status, a.raw)
	}
	if n := count(t, pool, `SELECT count(*) FROM things WHERE namespace = 'team-a' AND replicas = 2`); n != 1 {
		t.Errorf("%d things in team-a with the first create's spec; want 1", n)
	}

	leak, _, _ := startKube(t, "tenant-leak")
	post(t, url(leak, "team-a"), nil, object("web-1", 2))
	if a := post(t, url(leak, "team-b"), nil, object("web-1", 2)); a.status != 409 {
		t.Errorf("tenant-leak: the name in another namespace answered %d; want the bug to refuse it", a.status)
	}
	upsert, _, upsertPool := startKube(t, "upsert")
	post(t, url(upsert, "team-a"), nil, object("web-1", 2))
	if a := post(t, url(upsert, "team-a"), nil, object("web-1", 3)); a.status != 409 || count(t, upsertPool, `SELECT count(*) FROM things WHERE replicas = 3`) != 1 {
		t.Errorf("upsert: the second create answered %d and left the spec; want the bug to overwrite it behind a 409", a.status)
	}
}
