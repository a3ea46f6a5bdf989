package google_test

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/testbed/apitest"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
)

// The Google-like service under idemstress: correct, it passes
// apitest.Plans plans with every fault fired; each planted bug is one row,
// minimal.
func TestGoogleLike(t *testing.T) {
	a1 := stresstest.Call("A", "k1", 0)
	apitest.RunShape(t, apitest.ReadContract(t), func(t *testing.T, bug string) (string, string) {
		base, dbURL, _ := startGoogle(t, bug)
		return base, dbURL
	}, []apitest.BugCase{
		{Bug: "check-then-insert", Want: checks.DuplicateEffect, Minimal: apitest.StepsOf(stresstest.Burst(a1, a1))},
		{Bug: "tenant-leak", Want: checks.TenantLeak, Minimal: apitest.StepsOf(a1, stresstest.Call("B", "k1", 0))},
		// Keyed with the body, the bug fires only on a changed one: the plan
		// is A/k1 v0; A/k1 v1, whose skeleton (no variants) is a1, a1.
		{Bug: "new-instance-on-change", Want: checks.DuplicateEffect, Minimal: apitest.StepsOf(a1, a1)},
	})
}

// The service itself, by plain requests, does what Compute Engine's
// requestId documents.
func TestGoogleLikeService(t *testing.T) {
	const (
		rid     = "0b4a5f5e-1c2d-4e3f-9a8b-7c6d5e4f3a2b"
		project = "shop-prod-1"
		body    = `{"name":"web-1","machineType":"e2-small"}`
		changed = `{"name":"web-1","machineType":"e2-medium"}`
	)
	base, _, pool := startGoogle(t, "")
	url := func(project, rid string) string {
		return base + "/v1/projects/" + project + "/instances?requestId=" + rid
	}
	rows := func() int { return apitest.Count(t, pool, `SELECT count(*) FROM instances`) }

	for _, bad := range []struct{ name, url, body string }{
		{"a requestId that is no UUID", url(project, "is4d980a21-1-A"), body},
		{"an upper-case project ID", url("Shop-Prod-1", rid), body},
		{"a machine type that does not exist", url(project, rid), `{"name":"web-1","machineType":"e2-huge"}`},
		{"no requestId", base + "/v1/projects/" + project + "/instances", body},
	} {
		a := apitest.Post(t, bad.url, nil, bad.body)
		if a.Status != 400 || a.At("/error/status") != "INVALID_ARGUMENT" {
			t.Errorf("%s: %d %s; want 400 INVALID_ARGUMENT", bad.name, a.Status, a.Raw)
		}
	}
	if n := rows(); n != 0 {
		t.Fatalf("%d instances after refusals; want none", n)
	}

	first := apitest.Post(t, url(project, rid), nil, body)
	again := apitest.Post(t, url(project, rid), nil, body)
	other := apitest.Post(t, url(project, rid), nil, changed)
	for _, a := range []apitest.Answer{first, again, other} {
		if a.Status != 200 || a.At("/kind") != "compute#operation" || a.At("/targetId") != first.At("/targetId") {
			t.Errorf("answer %d %s; want an Operation naming instance %s", a.Status, a.Raw, first.At("/targetId"))
		}
	}
	if first.At("/name") == again.At("/name") {
		t.Errorf("two calls answered the same operation %s; want a new one each time", first.At("/name"))
	}
	if n := rows(); n != 1 {
		t.Errorf("%d instances after a duplicate and a changed duplicate; want 1", n)
	}
	if n := apitest.Count(t, pool, `SELECT count(*) FROM instances WHERE machine_type = 'e2-small'`); n != 1 {
		t.Errorf("the changed duplicate's machine type was stored; want the first request's")
	}
	if a := apitest.Post(t, url("shop-test-2", rid), nil, body); a.At("/targetId") == first.At("/targetId") {
		t.Errorf("the same requestId in another project answered the first project's instance")
	}

	// Each bug, where plain requests show it.
	leakBase, _, _ := startGoogle(t, "tenant-leak")
	a := apitest.Post(t, leakBase+"/v1/projects/"+project+"/instances?requestId="+rid, nil, body)
	if b := apitest.Post(t, leakBase+"/v1/projects/shop-test-2/instances?requestId="+rid, nil, body); b.At("/targetId") != a.At("/targetId") {
		t.Errorf("tenant-leak: another project got its own instance; want the bug to answer the first one")
	}
	changeBase, _, changePool := startGoogle(t, "new-instance-on-change")
	apitest.Post(t, changeBase+"/v1/projects/"+project+"/instances?requestId="+rid, nil, body)
	apitest.Post(t, changeBase+"/v1/projects/"+project+"/instances?requestId="+rid, nil, changed)
	if n := apitest.Count(t, changePool, `SELECT count(*) FROM instances`); n != 2 {
		t.Errorf("new-instance-on-change: %d instances; want the bug to make 2", n)
	}
}
