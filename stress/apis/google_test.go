package apis_test

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
)

// The Google-like service under idemstress: correct, it passes 100 plans
// with every fault fired; each planted bug is one row, minimal.
func TestGoogleLike(t *testing.T) {
	a1 := call("A", "k1", 0)
	runShape(t, googleContract, func(t *testing.T, bug string) (string, string) {
		base, dbURL, _ := startGoogle(t, bug)
		return base, dbURL
	}, []bugCase{
		{bug: "check-then-insert", want: checks.DuplicateEffect, minimal: stepsOf(burst(a1, a1))},
		{bug: "tenant-leak", want: checks.TenantLeak, minimal: stepsOf(a1, call("B", "k1", 0))},
		{bug: "new-instance-on-change", want: checks.DuplicateEffect, minimal: stepsOf(a1, a1)},
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
	rows := func() int { return count(t, pool, `SELECT count(*) FROM instances`) }

	for _, bad := range []struct{ name, url, body string }{
		{"a requestId that is no UUID", url(project, "is4d980a21-1-A"), body},
		{"an upper-case project ID", url("Shop-Prod-1", rid), body},
		{"a machine type that does not exist", url(project, rid), `{"name":"web-1","machineType":"e2-huge"}`},
		{"no requestId", base + "/v1/projects/" + project + "/instances", body},
	} {
		a := post(t, bad.url, nil, bad.body)
		if a.status != 400 || a.at("/error/status") != "INVALID_ARGUMENT" {
			t.Errorf("%s: %d %s; want 400 INVALID_ARGUMENT", bad.name, a.status, a.raw)
		}
	}
	if n := rows(); n != 0 {
		t.Fatalf("%d instances after refusals; want none", n)
	}

	first := post(t, url(project, rid), nil, body)
	again := post(t, url(project, rid), nil, body)
	other := post(t, url(project, rid), nil, changed)
	for _, a := range []answer{first, again, other} {
		if a.status != 200 || a.at("/kind") != "compute#operation" || a.at("/targetId") != first.at("/targetId") {
			t.Errorf("answer %d %s; want an Operation naming instance %s", a.status, a.raw, first.at("/targetId"))
		}
	}
	if first.at("/name") == again.at("/name") {
		t.Errorf("two calls answered the same operation %s; want a new one each time", first.at("/name"))
	}
	if n := rows(); n != 1 {
		t.Errorf("%d instances after a duplicate and a changed duplicate; want 1", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM instances WHERE machine_type = 'e2-small'`); n != 1 {
		t.Errorf("the changed duplicate's machine type was stored; want the first request's")
	}
	if a := post(t, url("shop-test-2", rid), nil, body); a.at("/targetId") == first.at("/targetId") {
		t.Errorf("the same requestId in another project answered the first project's instance")
	}

	// Each bug, where plain requests show it.
	leakBase, _, _ := startGoogle(t, "tenant-leak")
	a := post(t, leakBase+"/v1/projects/"+project+"/instances?requestId="+rid, nil, body)
	if b := post(t, leakBase+"/v1/projects/shop-test-2/instances?requestId="+rid, nil, body); b.at("/targetId") != a.at("/targetId") {
		t.Errorf("tenant-leak: another project got its own instance; want the bug to answer the first one")
	}
	changeBase, _, changePool := startGoogle(t, "new-instance-on-change")
	post(t, changeBase+"/v1/projects/"+project+"/instances?requestId="+rid, nil, body)
	post(t, changeBase+"/v1/projects/"+project+"/instances?requestId="+rid, nil, changed)
	if n := count(t, changePool, `SELECT count(*) FROM instances`); n != 2 {
		t.Errorf("new-instance-on-change: %d instances; want the bug to make 2", n)
	}
}
