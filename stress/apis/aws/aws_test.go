package aws_test

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/testbed/apitest"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
)

// The AWS-JSON-like service under idemstress: correct, it passes
// apitest.Plans plans with every fault fired; each planted bug is one row,
// minimal.
func TestAWSLike(t *testing.T) {
	a1 := stresstest.Call("A", "k1", 0)
	apitest.RunShape(t, apitest.ReadContract(t), func(t *testing.T, bug string) (string, string) {
		base, dbURL, _ := startAWS(t, bug)
		return base, dbURL
	}, []apitest.BugCase{
		{Bug: "check-then-insert", Want: checks.DuplicateEffect, Minimal: apitest.StepsOf(stresstest.Burst(a1, a1))},
		{Bug: "tenant-leak", Want: checks.TenantLeak, Minimal: apitest.StepsOf(a1, stresstest.Call("B", "k1", 0))},
		{Bug: "fingerprint-ignores-field", Want: checks.ChangedAccepted, Minimal: apitest.StepsOf(a1, a1)},
	})
}

// The service itself, by plain requests, does what AWS documents for a
// ClientToken.
func TestAWSLikeService(t *testing.T) {
	const (
		alice = "AKIAIOSFODNN7EXAMPLE"
		bob   = "AKIAI44QH8DHBEXAMPLE"
		body  = `{"ClientToken":"tok_1","Name":"build-cache","Size":4}`
	)
	base, _, pool := startAWS(t, "")
	send := func(base, key, body string) apitest.Answer {
		return apitest.Post(t, base+"/", map[string]string{
			"X-Amz-Target":  "ThingService.CreateThing",
			"Authorization": "AWS4-HMAC-SHA256 Credential=" + key + "/20260101/us-east-1/thing/aws4_request, SignedHeaders=host, Signature=0",
		}, body)
	}
	for _, bad := range []struct{ name, key, body, want string }{
		{"a token with a hyphen", alice, `{"ClientToken":"is4d980a21-1-A","Name":"build-cache","Size":4}`, "ValidationException"},
		{"no token", alice, `{"Name":"build-cache","Size":4}`, "ValidationException"},
		{"a size out of range", alice, `{"ClientToken":"tok_9","Name":"build-cache","Size":17}`, "ValidationException"},
		{"an unknown member", alice, `{"ClientToken":"tok_9","Name":"build-cache","Size":4,"Colour":"red"}`, "SerializationException"},
		{"a size written 4.0", alice, `{"ClientToken":"tok_9","Name":"build-cache","Size":4.0}`, "SerializationException"},
		{"an account that does not exist", "AKIANOSUCHKEYEXAMPLE", body, "UnrecognizedClientException"},
	} {
		if a := send(base, bad.key, bad.body); a.Status != 400 || a.At("/__type") != bad.want {
			t.Errorf("%s: %d %s; want 400 %s", bad.name, a.Status, a.Raw, bad.want)
		}
	}
	first := send(base, alice, body)
	if first.Status != 200 || first.At("/ThingId") == "" {
		t.Fatalf("create: %d %s", first.Status, first.Raw)
	}
	if a := send(base, alice, `{"Size":4,"Name":"build-cache","ClientToken":"tok_1"}`); a.Status != 200 || a.At("/ThingId") != first.At("/ThingId") {
		t.Errorf("retry: %d %s; want the original Thing %s", a.Status, a.Raw, first.At("/ThingId"))
	}
	if a := send(base, alice, `{"ClientToken":"tok_1","Name":"build-cache","Size":5}`); a.Status != 400 || a.At("/__type") != "IdempotentParameterMismatch" {
		t.Errorf("changed Size: %d %s; want 400 IdempotentParameterMismatch", a.Status, a.Raw)
	}
	if a := send(base, bob, body); a.Status != 200 || a.At("/ThingId") == first.At("/ThingId") {
		t.Errorf("the token of another account: %d %s; want a Thing of its own", a.Status, a.Raw)
	}
	if n := apitest.Count(t, pool, `SELECT count(*) FROM things`); n != 2 {
		t.Errorf("%d things; want 2 (one per account)", n)
	}

	ignores, _, _ := startAWS(t, "fingerprint-ignores-field")
	send(ignores, alice, body)
	if a := send(ignores, alice, `{"ClientToken":"tok_1","Name":"build-cache","Size":5}`); a.Status != 200 {
		t.Errorf("fingerprint-ignores-field: changed Size answered %d; want the bug to replay it", a.Status)
	}
	leak, _, _ := startAWS(t, "tenant-leak")
	a := send(leak, alice, body)
	if b := send(leak, bob, body); b.At("/ThingId") != a.At("/ThingId") {
		t.Errorf("tenant-leak: another account got a Thing of its own; want the bug to answer the first one")
	}
}
