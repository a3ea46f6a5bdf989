package openapi_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/draft/openapi"
	"github.com/idemstress/idemstress/stress"
)

// paysvc's document drafts the request: the merchant path segment as the
// tenant, the body's idempotency_key as the key, rules from the schema, the
// ID from the 200 answer, refusals by their documented codes.
func TestFromOpenAPIPaysvc(t *testing.T) {
	d, err := openapi.Draft(context.Background(), "../../../examples/paysvc/openapi.yaml", "POST /v2/merchants/{merchant}/payments", "http://127.0.0.1:9")
	if err != nil {
		t.Fatal(err)
	}
	d.Defaults()
	b, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		`url: http://127.0.0.1:9/v2/merchants/{{tenant}}/payments # guessed: path parameter "merchant" is the tenant`,
		"id: /payment/id # guessed:", "idempotency_key: '{{key}}'", "key_max_len: 255",
		"/amount_money/currency: {enum: [AUD, CAD, EUR, GBP, JPY, USD]}", "/note: {max_len: 500}",
		"equals: {/errors/0/code: MISSING_REQUIRED_PARAMETER}", "equals: {/errors/0/code: IDEMPOTENCY_KEY_IN_USE}",
		"effects: TODO",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("draft lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "statuses:") || strings.Contains(text, "X-Request-Id") {
		t.Errorf("statuses beside the matchers, or the tracing header taken for the key:\n%s", text)
	}
	// What init could not fill is a TODO, and run refuses it by name.
	if _, err := stress.Parse("c.yaml", b); err == nil || !strings.Contains(err.Error(), "effects (line") || !strings.Contains(err.Error(), "TODO left by idemstress init") {
		t.Errorf("the draft with no effects: %v", err)
	}
}

// A document with a path parameter that is neither tenant nor key, no
// server and no refusals leaves the URL a TODO and the statuses guessed.
func TestFromOpenAPITodos(t *testing.T) {
	doc := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orgs/{org}/projects/{project}/tasks:
    post:
      operationId: createTask
      parameters:
        - {name: org, in: path, required: true, schema: {type: string}}
        - {name: project, in: path, required: true, schema: {type: string}}
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string, maxLength: 64}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [title, due]
              properties:
                title: {type: string, example: Write the report}
                due: {type: string, format: date, example: "2026-01-31"}
                size: {type: integer, minimum: 1, example: 3}
      responses:
        "201":
          description: created
          content:
            application/json:
              schema: {type: object, properties: {task: {type: object, properties: {id: {type: integer}}}}}
`
	file := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := openapi.Draft(context.Background(), file, "createTask", "http://127.0.0.1:9")
	if err != nil {
		t.Fatal(err)
	}
	d.Defaults()
	b, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		`url: TODO # guessed: path parameter "org" is the tenant; path parameter "project": neither tenant nor key`,
		"Idempotency-Key: '{{key}}'", "id: /task/id", "key_max_len: 64",
		"/due: fixed # a format date the document gives no other members of",
		"/size: {int: {max: 1000003, min: 1}} # guessed: the schema has a minimum only",
		"conflict: [422]", "# guessed: the IETF draft's statuses",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("draft lacks %q:\n%s", want, text)
		}
	}
	if _, err := stress.Parse("c.yaml", b); err == nil || !strings.Contains(err.Error(), "target.url (line") {
		t.Errorf("the draft with a TODO URL: %v", err)
	}
	if _, err := openapi.Draft(context.Background(), file, "createThing", ""); err == nil || !strings.Contains(err.Error(), "(operations: createTask)") {
		t.Errorf("an unknown operation: %v", err)
	}
}
