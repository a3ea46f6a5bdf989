package apis_test

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
)

// The AWS-JSON-like service under idemstress: correct, it passes 100
// plans with every fault fired; each planted bug is one row, minimal.
func TestAWSLike(t *testing.T) {
	a1 := call("A", "k1", 0)
	runShape(t, awsContract, func(t *testing.T, bug string) (string, string) {
		base, dbURL, _ := startAWS(t, bug)
		return base, dbURL
	}, []bugCase{
		{bug: "check-then-insert", want: checks.DuplicateEffect, minimal: stepsOf(burst(a1, a1))},
		{bug: "tenant-leak", want: checks.TenantLeak, minimal: stepsOf(a1, call("B", "k1", 0))},
		{bug: "fingerprint-ignores-field", want: checks.ChangedAccepted, minimal: stepsOf(a1, a1)},
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
	send := func(base, key, body string) answer {
		return post(t, base+"/", map[string]string{
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
		if a := send(base, bad.key, bad.body); a.status != 400 || a.at("/__type") != bad.want {
			t.Errorf("%s: %d %s; want 400 %s", bad.name, a.status, a.raw, bad.want)
		}
	}
	first := send(base, alice, body)
	if first.status != 200 || first.at("/ThingId") == "" {
		t.Fatalf("create: %d %s", first.status, first.raw)
	}
	if a := send(base, alice, `{"Size":4,"Name":"build-cache","ClientToken":"tok_1"}`); a.status != 200 || a.at("/ThingId") != first.at("/ThingId") {
		t.Errorf("retry: %d %s; want the original Thing %s", a.status, a.raw, first.at("/ThingId"))
	}
	if a := send(base, alice, `{"ClientToken":"tok_1","Name":"build-cache","Size":5}`); a.status != 400 || a.at("/__type") != "IdempotentParameterMismatch" {
		t.Errorf("changed Size: %d %s; want 400 IdempotentParameterMismatch", a.status, a.raw)
	}
	if a := send(base, bob, body); a.status != 200 || a.at("/ThingId") == first.at("/ThingId") {
		t.Errorf("the token of another account: %d %s; want a Thing of its own", a.status, a.raw)
	}
	if n := count(t, pool, `SELECT count(*) FROM things`); n != 2 {
		t.Errorf("%d things; want 2 (one per account)", n)
	}

	ignores, _, _ := startAWS(t, "fingerprint-ignores-field")
	send(ignores, alice, body)
	if a := send(ignores, alice, `{"ClientToken":"tok_1","Name":"build-cache","Size":5}`); a.status != 200 {
		t.Errorf("fingerprint-ignores-field: changed Size answered %d; want the bug to replay it", a.status)
	}
	leak, _, _ := startAWS(t, "tenant-leak")
	a := send(leak, alice, body)
	if b := send(leak, bob, body); b.at("/ThingId") != a.at("/ThingId") {
		t.Errorf("tenant-leak: another account got a Thing of its own; want the bug to answer the first one")
	}
}
