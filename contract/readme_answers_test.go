package contract_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// docs/contract.md's "Answers" section: its contracts are under 30 lines, what
// they say in answers: is accepted and reads the answers of the API it
// names as the section says, and the one that needs nothing else parses
// whole.
func TestREADMEAnswersContracts(t *testing.T) {
	readme, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "## Answers")
	if start < 0 {
		t.Fatal(`docs/contract.md has no "## Answers" section`)
	}
	text = text[start:]
	text = text[:strings.Index(text[1:], "\n## ")+1]
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(text, -1)
	if len(blocks) != 5 {
		t.Fatalf("the Answers section has %d YAML blocks, want the reference and four contracts", len(blocks))
	}
	sample := string(ticketsvc.Contract)
	withoutStatuses := sample[:strings.Index(sample, "statuses:")] + sample[strings.Index(sample, "equivalence:"):]
	answersOf := func(block string) string {
		a := block[strings.Index(block, "answers:"):]
		if i := strings.Index(a, "\neffects:"); i >= 0 {
			a = a[:i+1]
		}
		return a
	}
	for _, tc := range []struct {
		name   string
		answer model.Answer
		want   model.OutcomeKind
	}{
		{"reference", model.Answer{Status: 409, Body: []byte(`{"error":{"errors":[{"reason":"idempotent_creation_conflict","links":{"conflicting_resource_id":"7"}}]}}`)}, model.OK},
		{"Stripe-like", model.Answer{Status: 400, Body: []byte(`{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters"}}`)}, model.Conflict},
		{"Square-like", model.Answer{Status: 400, Body: []byte(`{"errors":[{"category":"INVALID_REQUEST_ERROR","code":"MISSING_REQUIRED_PARAMETER"}]}`)}, model.Invalid},
		{"GoCardless-like", model.Answer{Status: 409, Body: []byte(`{"error":{"code":409,"errors":[{"reason":"idempotent_creation_conflict","links":{"conflicting_resource_id":"PM1"}}]}}`)}, model.OK},
		{"GraphQL-like", model.Answer{Status: 200, Body: []byte(`{"data":{"createPayment":{"id":"P1"}}}`), ID: "P1"}, model.OK},
		{"GraphQL-like", model.Answer{Status: 200, Body: []byte(`{"data":{"createPayment":null},"errors":[{"message":"reused","extensions":{"code":"IDEMPOTENCY_KEY_REUSED"}}]}`)}, model.Conflict},
		{"GraphQL-like", model.Answer{Status: 200, Body: []byte(`{"data":{"createPayment":null},"errors":[{"message":"failed","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}`)}, model.Unknown},
	} {
		i := map[string]int{"reference": 0, "Stripe-like": 1, "Square-like": 2, "GoCardless-like": 3, "GraphQL-like": 4}[tc.name]
		block := blocks[i][1]
		if i > 0 && (!strings.HasPrefix(block, "# "+tc.name) || strings.Count(block, "\n") >= 30) {
			t.Errorf("docs/contract.md contract %d: want a %s contract of under 30 lines, got %d lines:\n%s", i, tc.name, strings.Count(block, "\n"), block)
		}
		yaml := withoutStatuses + "\n" + answersOf(block)
		if line := regexp.MustCompile(`(?m)^statuses:.*$`).FindString(block); line != "" {
			yaml += line + "\n"
		}
		cfg, err := contract.Parse(tc.name+".yaml", []byte(yaml))
		if err != nil {
			t.Errorf("%s: its answers: %v", tc.name, err)
			continue
		}
		if got := reference.Read(cfg.Contract, tc.answer).Kind; got != tc.want {
			t.Errorf("%s reads %d %s as %s, want %s", tc.name, tc.answer.Status, tc.answer.Body, got, tc.want)
		}
		if !strings.Contains(block, "key-in-body work") && i > 0 {
			if _, err := contract.Parse(tc.name+".yaml", []byte(block)); err != nil {
				t.Errorf("%s contract: %v", tc.name, err)
			}
		}
	}
}
