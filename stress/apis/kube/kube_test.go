package kube_test

import (
	"fmt"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/testbed/apitest"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
)

// The Kubernetes-like service under idemstress: correct, it passes
// apitest.Plans plans with every fault fired; each planted bug is one row,
// minimal.
func TestKubernetesLike(t *testing.T) {
	a1 := stresstest.Call("A", "k1", 0)
	apitest.RunShape(t, apitest.ReadContract(t), func(t *testing.T, bug string) (string, string) {
		base, dbURL, _ := startKube(t, bug)
		return base, dbURL
	}, []apitest.BugCase{
		{Bug: "check-then-insert", Want: checks.DuplicateEffect, Minimal: apitest.StepsOf(stresstest.Burst(a1, a1))},
		{Bug: "tenant-leak", Want: checks.TenantLeak, Minimal: apitest.StepsOf(a1, stresstest.Call("B", "k1", 0))},
		{Bug: "upsert", Want: checks.FieldsDiffer, Minimal: apitest.StepsOf(a1, a1)},
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
		if a := apitest.Post(t, url(base, bad.ns), nil, bad.body); a.Status != bad.status || a.At("/kind") != "Status" || a.At("/reason") != bad.reason {
			t.Errorf("%s: %d %s; want %d Status %s", bad.name, a.Status, a.Raw, bad.status, bad.reason)
		}
	}
	first := apitest.Post(t, url(base, "team-a"), nil, object("web-1", 2))
	if first.Status != 201 || first.At("/metadata/name") != "web-1" || first.At("/metadata/uid") == "" {
		t.Fatalf("create: %d %s", first.Status, first.Raw)
	}
	for _, body := range []string{object("web-1", 2), object("web-1", 3)} {
		a := apitest.Post(t, url(base, "team-a"), nil, body)
		if a.Status != 409 || a.At("/reason") != "AlreadyExists" || a.At("/details/name") != "web-1" {
			t.Errorf("second create %s: %d %s; want 409 AlreadyExists naming web-1", body, a.Status, a.Raw)
		}
	}
	if a := apitest.Post(t, url(base, "team-b"), nil, object("web-1", 2)); a.Status != 201 {
		t.Errorf("the name in another namespace: %d %s; want it created", a.Status, a.Raw)
	}
	if n := apitest.Count(t, pool, `SELECT count(*) FROM things WHERE namespace = 'team-a' AND replicas = 2`); n != 1 {
		t.Errorf("%d things in team-a with the first create's spec; want 1", n)
	}

	leak, _, _ := startKube(t, "tenant-leak")
	apitest.Post(t, url(leak, "team-a"), nil, object("web-1", 2))
	if a := apitest.Post(t, url(leak, "team-b"), nil, object("web-1", 2)); a.Status != 409 {
		t.Errorf("tenant-leak: the name in another namespace answered %d; want the bug to refuse it", a.Status)
	}
	upsert, _, upsertPool := startKube(t, "upsert")
	apitest.Post(t, url(upsert, "team-a"), nil, object("web-1", 2))
	if a := apitest.Post(t, url(upsert, "team-a"), nil, object("web-1", 3)); a.Status != 409 || apitest.Count(t, upsertPool, `SELECT count(*) FROM things WHERE replicas = 3`) != 1 {
		t.Errorf("upsert: the second create answered %d and left the spec; want the bug to overwrite it behind a 409", a.Status)
	}
}
