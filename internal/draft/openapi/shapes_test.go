package openapi_test

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/draft"
	"github.com/idemstress/idemstress/internal/draft/openapi"
)

// drafted renders the draft of one operation of a document, after Defaults.
func drafted(t *testing.T, file, operation, server string) string {
	t.Helper()
	d, err := openapi.Draft(context.Background(), file, operation, server)
	if err != nil {
		t.Fatal(err)
	}
	d.Defaults()
	b, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docFile writes a document to a file of the test.
func docFile(t *testing.T, doc string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func assertDraft(t *testing.T, text string, want, unwanted []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("draft lacks %q:\n%s", w, text)
		}
	}
	for _, u := range unwanted {
		if strings.Contains(text, u) {
			t.Errorf("draft has %q:\n%s", u, text)
		}
	}
}

// The Compute-like document (AIP-155): the optional requestId query
// parameter is the key, a UUID, and the project path segment the tenant
// with its pattern; the zone is the document's example, the ID the
// Operation's targetId, and a 409 "alreadyExists" is no in-flight answer.
func TestFromOpenAPIComputeLike(t *testing.T) {
	text := drafted(t, "testdata/compute.yaml", "compute.instances.insert", "")
	assertDraft(t, text, []string{
		"url: https://compute.example.test/compute/v1/projects/{{tenant}}/zones/us-central1-a/instances?requestId={{key}} #",
		`guessed: query parameter "requestId" is the key`,
		"key_format: uuid # the document's format uuid of the key",
		"key_required: false",
		`tenant_pattern: (?:(?:[-a-z0-9]{1,63}\.)*`,
		"id: /targetId # guessed:",
		"in_flight: [] # guessed: the document lists no in-progress answer; its 409 is described as another refusal",
		`Authorization: TODO # the document's security scheme "oauth" (oauth2): give "Bearer <token>"`,
		"machineType: zones/us-central1-a/machineTypes/e2-small",
	}, []string{"Idempotency-Key", "sourceInstanceTemplate", "key_pattern", "in_flight: [409]"})
}

// The AWS-JSON-like document: the X-Amz-Target header's one value, the
// body's media type, the ClientToken member as the key with its \w+
// pattern and length, and IdempotentParameterMismatch in __type as the
// conflict.
func TestFromOpenAPIAWSJSONLike(t *testing.T) {
	text := drafted(t, "testdata/awsjson.yaml", "RequestCertificate", "")
	assertDraft(t, text, []string{
		"url: https://acm.example.test/\n",
		"X-Amz-Target: CertificateManager.RequestCertificate # guessed:",
		"Content-Type: application/x-amz-json-1.1",
		"ClientToken: '{{key}}'",
		"guessed: member /ClientToken is the key (named like one, described as the idempotency key)",
		`key_pattern: ^[\w]+$ # the document's pattern of the key`,
		"key_max_len: 32",
		"equals: {/__type: IdempotentParameterMismatch}",
		"id: /CertificateArn",
		"key_scope: global",
		"in_flight: [] # guessed: the document lists no in-progress answer",
		"is AWS Signature Version 4",
	}, []string{"Idempotency-Key", "key_format"})
}

// A key pattern with a lookahead is no reason to refuse the document: the
// draft quotes it in a TODO comment, offers it without the lookahead, and
// goes on (the tenant from an enum, in_flight from a 429 in progress).
func TestFromOpenAPILookaheadPattern(t *testing.T) {
	text := drafted(t, "testdata/lookahead.yaml", "createOrder", "")
	assertDraft(t, text, []string{
		`# TODO key_pattern: the document's pattern of the key, "^(?!aws:|sys:)[A-Za-z0-9:_-]{1,64}$", uses a lookaround (?!, which RE2 cannot compile; without it: key_pattern: "^[A-Za-z0-9:_-]{1,64}$"`,
		"Idempotency-Key: '{{key}}'",
		"key_max_len: 64",
		"tenants: [acct-eu, acct-us] # the document's enum of path parameter account",
		"in_flight: [429] # guessed: the document's 429 answer is described as a call still in progress",
		"conflict: [422]",
		`Authorization: TODO # the document's security scheme "bearer" (http bearer)`,
	}, []string{"\nkey_pattern:"})
}

// A document of one operation, with the parameters, body properties and
// answers given.
func oneOperation(params, props, responses string) string {
	return `openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: "https://api.example.test"}]
paths:
  /things:
    post:
      operationId: createThing
      parameters:` + cmp.Or(params, " []") + `
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [title]
              properties:
                title: {type: string, example: a thing}` + props + `
      responses:
        "201":
          description: created
          content: {application/json: {schema: {type: object, properties: {id: {type: string}}}}}` + responses + "\n"
}

// Where the key is found, by name, description and requirement, and what
// is drafted of its shape and of in_flight.
func TestFromOpenAPIKeySites(t *testing.T) {
	for _, tc := range []struct {
		name, path               string
		params, props, responses string
		want, unwanted           []string
	}{
		{name: "a nested body member",
			props: `
                order:
                  type: object
                  properties:
                    idempotency_key: {type: string, format: uuid}`,
			want:     []string{"order:\n    idempotency_key: '{{key}}'", "guessed: member /order/idempotency_key is the key", "key_format: uuid"},
			unwanted: []string{"Idempotency-Key"}},
		{name: "a tracing X-Request-Id is not the key",
			params: `
        - {name: X-Request-Id, in: header, description: A request ID for tracing, schema: {type: string}}`,
			want: []string{"Idempotency-Key: TODO # nothing says where the key travels"}, unwanted: []string{"X-Request-Id:"}},
		{name: "a required X-Request-Id is",
			params: `
        - {name: X-Request-Id, in: header, required: true, schema: {type: string}}`,
			want: []string{"X-Request-Id: '{{key}}' # guessed: the key travels in header X-Request-Id (named like one, required)"}, unwanted: []string{"Idempotency-Key", "key_required"}},
		{name: "a query clientToken described by its retries",
			params: `
        - {name: clientToken, in: query, description: Makes a retry of the request safe., schema: {type: string, maxLength: 64}}`,
			want: []string{"url: https://api.example.test/things?clientToken={{key}}", "key_max_len: 64", "key_required: false"}},
		{name: "a token named by its description",
			params: `
        - {name: token, in: header, required: true, description: The idempotency token of the create., schema: {type: string}}`,
			want: []string{"token: '{{key}}'"}, unwanted: []string{"Idempotency-Key"}},
		{name: "a body requestId by its name alone",
			props: `
                requestId: {type: string}`,
			want: []string{"requestId: '{{key}}'", "guessed: member /requestId is the key (named like one)", "key_required: false"}, unwanted: []string{"Idempotency-Key"}},
		{name: "a key in the path", path: "/things/{requestId}",
			params: `
        - {name: requestId, in: path, required: true, schema: {type: string, maxLength: 40}}`,
			want:     []string{"url: https://api.example.test/things/{{key}} # guessed: path parameter \"requestId\" is the key (named like one, required)", "key_max_len: 40"},
			unwanted: []string{"{{tenant}}", "key_required"}},
		{name: "a tenant in the query, and an optional parameter left out",
			params: `
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
        - {name: account_id, in: query, required: true, schema: {type: string, format: uuid}}
        - {name: dryRun, in: query, schema: {type: boolean}}`,
			want:     []string{"url: https://api.example.test/things?account_id={{tenant}} # guessed: query parameter \"account_id\" is the tenant", "tenant_format: uuid # the document's format uuid of query parameter account_id"},
			unwanted: []string{"dryRun", "key_scope"}},
		{name: "a required query parameter of no value is a TODO",
			params: `
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
        - {name: region, in: query, required: true, schema: {type: string}}`,
			want: []string{`url: TODO # a required query parameter "region": neither tenant nor key; give it a value (https://api.example.test/things?region=)`}},
		{name: "nested lookarounds are dropped whole, and a tenant's pattern too",
			params: `
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string, pattern: '^(?=.*[0-9])(?!(aws|sys):)[a-z0-9:]+$'}}
        - {name: X-Tenant-Id, in: header, required: true, schema: {type: string, pattern: '^(?!default$)[a-z]{3,20}$'}}`,
			want: []string{`without it: key_pattern: "^[a-z0-9:]+$"`, "X-Tenant-Id: '{{tenant}}'",
				`# TODO tenant_pattern: the document's pattern of header X-Tenant-Id, "^(?!default$)[a-z]{3,20}$", uses a lookaround (?!, which RE2 cannot compile; without it: tenant_pattern: "^[a-z]{3,20}$"`},
			unwanted: []string{"\nkey_pattern:", "\ntenant_pattern:"}},
		{name: "a backreference has no simpler form",
			params: `
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string, pattern: '^(a+)\1$'}}`,
			want:     []string{`# TODO key_pattern: the document's pattern of the key, "^(a+)\\1$", uses a backreference \1, which RE2 cannot compile; write an RE2 pattern`},
			unwanted: []string{"\nkey_pattern:", "without it"}},
		{name: "nothing documented: the IETF guesses, and no in-flight answer",
			params: `
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}`,
			want: []string{"# guessed: the IETF draft's statuses", "conflict: [422]", "invalid: [400]", "in_flight: [] # guessed: the document lists no in-progress answer"}},
		{name: "a documented 409 is in flight",
			params: `
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}`,
			responses: `
        "409": {description: the key is in use}`,
			want: []string{"in_flight: [409] # guessed: documented, and the IETF draft's status for it"}, unwanted: []string{"in_flight: []"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := oneOperation(tc.params, tc.props, tc.responses)
			if tc.path != "" {
				doc = strings.Replace(doc, "/things:", tc.path+":", 1)
			}
			text := drafted(t, docFile(t, doc), "createThing", "")
			assertDraft(t, text, tc.want, tc.unwanted)
		})
	}
}

// A --header replaces the header the security scheme drafted as a TODO:
// the token given is used, once.
func TestSetHeaderReplacesTheSchemesTodo(t *testing.T) {
	d, err := openapi.Draft(context.Background(), "testdata/lookahead.yaml", "createOrder", "")
	if err != nil {
		t.Fatal(err)
	}
	d.SetHeader(draft.Header{Name: "authorization", Value: "Bearer t0ken"})
	d.Defaults()
	b, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	assertDraft(t, string(b), []string{"authorization: Bearer t0ken # --header"}, []string{"Authorization: TODO", "security scheme"})
}
