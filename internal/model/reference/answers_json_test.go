package reference_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// A contract without answers marshals as before answers existed, so the
// digest of case files written then still matches.
func TestAnswersLeftOutOfJSONWhenEmpty(t *testing.T) {
	b, err := json.Marshal(model.DefaultContract())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Answers") {
		t.Errorf("default contract marshals with answers: %s", b)
	}
	b, _ = json.Marshal(square())
	if !strings.Contains(string(b), `"Answers":{"created"`) {
		t.Errorf("a contract with answers marshals without them: %s", b)
	}
}

// ServerError is the one predicate every check asks: a 5xx no other
// outcome takes, or an answer answers.server_error takes; never a refusal,
// an ok answer or no answer at all.
func TestOutcomeServerError(t *testing.T) {
	read := func(c model.Contract, status int, body string) model.Outcome {
		r := reference.Read(c, model.Answer{Status: status, Body: []byte(body), ID: "7"})
		return model.Outcome{Kind: r.Kind, Status: status, ID: r.ID, Body: []byte(body)}
	}
	tests := []struct {
		name string
		out  model.Outcome
		want bool
	}{
		{"a 500", read(model.DefaultContract(), 500, ""), true},
		{"a 500 under no-effects", read(noEffects(model.DefaultContract()), 500, ""), true},
		{"a GraphQL 200 error", read(graphqlServerError(), 200, internalError), true},
		{"a GraphQL 200 error without server_error", read(graphql(), 200, internalError), false},
		{"a created 200", read(graphqlServerError(), 200, `{"data":{"createPayment":{"id":"7"}}}`), false},
		{"a 503 in flight", read(inFlight503(), 503, ""), false},
		{"a 422 conflict", read(model.DefaultContract(), 422, ""), false},
		{"no answer", model.Outcome{Kind: model.Unknown, Err: "timeout"}, false},
	}
	for _, tt := range tests {
		if got := tt.out.ServerError(); got != tt.want {
			t.Errorf("%s: %+v.ServerError() = %v, want %v", tt.name, tt.out, got, tt.want)
		}
	}
	if got, want := read(graphqlServerError(), 200, internalError).String(), "unknown 200 (server error)"; got != want {
		t.Errorf("a GraphQL server error renders %q, want %q", got, want)
	}
}
