package reference_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// square answers 400 to a reused key and to a missing key, told apart by
// errors[0].code.
func square() model.Contract {
	c := model.DefaultContract()
	c.Answers = model.Answers{
		Created:  []model.Matcher{{Status: []int{200}, ID: "/payment/id"}},
		Conflict: []model.Matcher{{Status: []int{400}, Equals: map[string]string{"/errors/0/code": "IDEMPOTENCY_KEY_REUSED"}}},
		Invalid:  []model.Matcher{{Status: []int{400}, Matches: map[string]string{"/errors/0/code": "^MISSING_"}}},
	}
	return c
}

// gocardless answers a replay with 409 and the existing resource's ID.
func gocardless() model.Contract {
	c := model.DefaultContract()
	c.Statuses.InFlight = []int{425}
	c.Answers = model.Answers{
		Replayed: []model.Matcher{{Status: []int{409}, Equals: map[string]string{"/error/errors/0/reason": "idempotent_creation_conflict"},
			ID: "/error/links/conflicting_resource_id"}},
	}
	return c
}

// stripe answers a changed-parameter reuse 400 with error.type idempotency_error.
func stripe() model.Contract {
	c := model.DefaultContract()
	c.Answers = model.Answers{
		Conflict: []model.Matcher{{Status: []int{400}, Equals: map[string]string{"/error/type": "idempotency_error"}}},
		Invalid:  []model.Matcher{{Status: []int{400}, Equals: map[string]string{"/error/type": "invalid_request_error"}}},
	}
	return c
}

// graphql answers everything 200: a created (or replayed) payment is
// /data/createPayment with no /errors, a refusal /errors/0 with a code.
func graphql() model.Contract {
	c := model.DefaultContract()
	c.Answers = model.Answers{
		Created:  []model.Matcher{{Status: []int{200}, Present: []string{"/data/createPayment"}, Absent: []string{"/errors"}, ID: "/data/createPayment/id"}},
		Conflict: []model.Matcher{{Status: []int{200}, Equals: map[string]string{"/errors/0/extensions/code": "IDEMPOTENCY_KEY_REUSED"}}},
		Invalid:  []model.Matcher{{Status: []int{200}, Present: []string{"/errors/0"}, Equals: map[string]string{"/errors/0/extensions/code": "BAD_USER_INPUT"}}},
	}
	return c
}

func TestRead(t *testing.T) {
	const (
		reused    = `{"errors":[{"category":"INVALID_REQUEST_ERROR","code":"IDEMPOTENCY_KEY_REUSED"}]}`
		missing   = `{"errors":[{"code":"MISSING_REQUIRED_PARAMETER","field":"idempotency_key"}]}`
		payment   = `{"payment":{"id":"p7"}}`
		replay409 = `{"error":{"code":409,"errors":[{"reason":"idempotent_creation_conflict"}],"links":{"conflicting_resource_id":"PM7"}}}`
	)
	tests := []struct {
		name     string
		contract model.Contract
		answer   model.Answer
		want     reference.Reading
	}{
		// The shorthand reads as it always did.
		{"default 201 with ID", model.DefaultContract(), model.Answer{Status: 201, ID: "7"}, reference.Reading{Kind: model.OK, ID: "7", Outcome: "created"}},
		{"default 201 without ID", model.DefaultContract(), model.Answer{Status: 201}, reference.Reading{Kind: model.Other, Outcome: "created"}},
		{"default 422", model.DefaultContract(), model.Answer{Status: 422}, reference.Reading{Kind: model.Conflict, Outcome: "conflict"}},
		{"default 404", model.DefaultContract(), model.Answer{Status: 404}, reference.Reading{Kind: model.Other}},
		{"default 500", model.DefaultContract(), model.Answer{Status: 500}, reference.Reading{Kind: model.Unknown, Outcome: "server_error"}},
		{"default 500 under no-effects", noEffects(model.DefaultContract()), model.Answer{Status: 500}, reference.Reading{Kind: model.Failed, Outcome: "server_error"}},
		// A 5xx another outcome takes is that outcome, no server error.
		{"a 503 in flight", inFlight503(), model.Answer{Status: 503}, reference.Reading{Kind: model.InFlight, Outcome: "in_flight"}},
		{"another 5xx beside it", inFlight503(), model.Answer{Status: 502}, reference.Reading{Kind: model.Unknown, Outcome: "server_error"}},
		// Square: one status, two outcomes, told apart by the body.
		{"square created, ID from its own pointer", square(), model.Answer{Status: 200, Body: []byte(payment)}, reference.Reading{Kind: model.OK, ID: "p7", Outcome: "created"}},
		{"square reused key", square(), model.Answer{Status: 400, Body: []byte(reused)}, reference.Reading{Kind: model.Conflict, Outcome: "conflict"}},
		{"square missing key", square(), model.Answer{Status: 400, Body: []byte(missing)}, reference.Reading{Kind: model.Invalid, Outcome: "invalid"}},
		{"square other 400", square(), model.Answer{Status: 400, Body: []byte(`{"errors":[{"code":"INVALID_VALUE"}]}`)}, reference.Reading{Kind: model.Other}},
		{"square 400 not JSON", square(), model.Answer{Status: 400, Body: []byte(`Bad Request`)}, reference.Reading{Kind: model.Other}},
		{"square 422 is no longer a conflict", square(), model.Answer{Status: 422, Body: []byte(reused)}, reference.Reading{Kind: model.Other}},
		{"square 409 still in flight", square(), model.Answer{Status: 409}, reference.Reading{Kind: model.InFlight, Outcome: "in_flight"}},
		{"square created without the ID", square(), model.Answer{Status: 200, Body: []byte(`{"payment":{}}`), ID: "x"}, reference.Reading{Kind: model.Other, Outcome: "created"}},
		// GoCardless: a replay is a 409 that carries the ID.
		{"gocardless replay", gocardless(), model.Answer{Status: 409, Body: []byte(replay409)}, reference.Reading{Kind: model.OK, ID: "PM7", Outcome: "replayed"}},
		{"gocardless created", gocardless(), model.Answer{Status: 201, Body: []byte(`{"id":"PM7"}`), ID: "PM7"}, reference.Reading{Kind: model.OK, ID: "PM7", Outcome: "created"}},
		{"gocardless 409 without the reason", gocardless(), model.Answer{Status: 409, Body: []byte(`{"error":{}}`)}, reference.Reading{Kind: model.Other}},
		{"gocardless replay without the ID", gocardless(), model.Answer{Status: 409, Body: []byte(`{"error":{"errors":[{"reason":"idempotent_creation_conflict"}]}}`)},
			reference.Reading{Kind: model.Other, Outcome: "replayed"}},
		// Stripe: the error type says which 400 it is.
		{"stripe idempotency error", stripe(), model.Answer{Status: 400, Body: []byte(`{"error":{"type":"idempotency_error"}}`)}, reference.Reading{Kind: model.Conflict, Outcome: "conflict"}},
		{"stripe invalid request", stripe(), model.Answer{Status: 400, Body: []byte(`{"error":{"type":"invalid_request_error"}}`)}, reference.Reading{Kind: model.Invalid, Outcome: "invalid"}},
		{"stripe card error", stripe(), model.Answer{Status: 402, Body: []byte(`{"error":{"type":"card_error"}}`)}, reference.Reading{Kind: model.Other}},
		// GraphQL: present and absent pointers tell a 200 from a 200.
		{"graphql created", graphql(), model.Answer{Status: 200, Body: []byte(`{"data":{"createPayment":{"id":"7"}}}`)}, reference.Reading{Kind: model.OK, ID: "7", Outcome: "created"}},
		{"graphql created, errors null", graphql(), model.Answer{Status: 200, Body: []byte(`{"data":{"createPayment":{"id":"7"}},"errors":null}`)}, reference.Reading{Kind: model.OK, ID: "7", Outcome: "created"}},
		{"graphql reused key", graphql(), model.Answer{Status: 200, Body: []byte(`{"data":{"createPayment":null},"errors":[{"extensions":{"code":"IDEMPOTENCY_KEY_REUSED"}}]}`)}, reference.Reading{Kind: model.Conflict, Outcome: "conflict"}},
		{"graphql data and errors both", graphql(), model.Answer{Status: 200, Body: []byte(`{"data":{"createPayment":{"id":"7"}},"errors":[{"extensions":{"code":"INTERNAL"}}]}`)}, reference.Reading{Kind: model.Other}},
		{"graphql null data, no errors", graphql(), model.Answer{Status: 200, Body: []byte(`{"data":{"createPayment":null}}`)}, reference.Reading{Kind: model.Other}},
		{"graphql not JSON", graphql(), model.Answer{Status: 200, Body: []byte(`<html>`), ID: "7"}, reference.Reading{Kind: model.Other}},
		// GraphQL: a failed mutation is a 200 server error, read as a 5xx is.
		{"graphql server error", graphqlServerError(), model.Answer{Status: 200, Body: []byte(internalError)}, reference.Reading{Kind: model.Unknown, Outcome: "server_error"}},
		{"graphql server error under no-effects", noEffects(graphqlServerError()), model.Answer{Status: 200, Body: []byte(internalError)}, reference.Reading{Kind: model.Failed, Outcome: "server_error"}},
		{"graphql created beside server_error", graphqlServerError(), model.Answer{Status: 200, Body: []byte(`{"data":{"createPayment":{"id":"7"}}}`)}, reference.Reading{Kind: model.OK, ID: "7", Outcome: "created"}},
		{"graphql 200 error without the matcher", graphql(), model.Answer{Status: 200, Body: []byte(internalError)}, reference.Reading{Kind: model.Other}},
		// Numbers and booleans compare as written in JSON.
		{"number condition", withConflict(model.Matcher{Status: []int{200}, Equals: map[string]string{"/code": "7", "/retry": "false"}}),
			model.Answer{Status: 200, Body: []byte(`{"code":7,"retry":false}`)}, reference.Reading{Kind: model.Conflict, Outcome: "conflict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := reference.CheckAnswers(tt.contract); err != nil {
				t.Fatalf("CheckAnswers: %v", err)
			}
			if got := reference.Read(tt.contract, tt.answer); got != tt.want {
				t.Errorf("Read = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// internalError is a GraphQL API's failed mutation.
const internalError = `{"data":{"createPayment":null},"errors":[{"message":"internal","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}`

// graphqlServerError is graphql that says which 200 is a server error.
func graphqlServerError() model.Contract {
	c := graphql()
	c.Answers.ServerError = []model.Matcher{{Status: []int{200}, Equals: map[string]string{"/errors/0/extensions/code": "INTERNAL_SERVER_ERROR"}}}
	return c
}

func noEffects(c model.Contract) model.Contract {
	c.ServerErrorsLeaveNoEffects = true
	return c
}

// inFlight503 answers a key in use 503.
func inFlight503() model.Contract {
	c := model.DefaultContract()
	c.Statuses.InFlight = []int{503}
	return c
}

func withConflict(m model.Matcher) model.Contract {
	c := model.DefaultContract()
	c.Answers.Created = []model.Matcher{{Status: []int{200, 201}, Equals: map[string]string{"/code": "0"}}}
	c.Answers.Conflict = []model.Matcher{m}
	return c
}

func TestCheckAnswers(t *testing.T) {
	eq := func(ptr, v string) map[string]string { return map[string]string{ptr: v} }
	tests := []struct {
		name    string
		answers model.Answers
		want    []string // "" for a contract CheckAnswers accepts
	}{
		{"defaults", model.Answers{}, nil},
		{"square", square().Answers, nil},
		{"gocardless", gocardless().Answers, nil},
		{"created and replayed on one status, one ID", model.Answers{Created: []model.Matcher{{Status: []int{201}}}, Replayed: []model.Matcher{{Status: []int{200, 201}}}}, nil},
		{"empty matcher", model.Answers{Conflict: []model.Matcher{{}}}, []string{"answers.conflict[0]", "no status"}},
		{"not a status", model.Answers{Invalid: []model.Matcher{{Status: []int{40}}}}, []string{"answers.invalid[0]", "40 is not an HTTP status"}},
		{"bad regexp", model.Answers{Invalid: []model.Matcher{{Status: []int{400}, Matches: eq("/code", "(")}}}, []string{"answers.invalid[0]", "matches: /code"}},
		{"not a pointer", model.Answers{Invalid: []model.Matcher{{Status: []int{400}, Equals: eq("code", "X")}}}, []string{"answers.invalid[0]", `"code" is not a JSON pointer`}},
		{"ID on a refusal", model.Answers{Conflict: []model.Matcher{{Status: []int{409}, ID: "/id"}}}, []string{"answers.conflict[0]", "id: only created and replayed"}},
		{"ID not a pointer", model.Answers{Replayed: []model.Matcher{{Status: []int{409}, ID: "id"}}}, []string{"answers.replayed[0]", `"id" is not a JSON pointer`}},
		{"2xx refusal without a condition", model.Answers{Conflict: []model.Matcher{{Status: []int{200}}}}, []string{"answers.conflict[0]", "200 is not an error status"}},
		{"one status for two refusals", model.Answers{Conflict: []model.Matcher{{Status: []int{400}}}, Invalid: []model.Matcher{{Status: []int{400}}}},
			[]string{"answers.conflict[0]", "answers.invalid[0]", "400"}},
		{"against the shorthand", model.Answers{Conflict: []model.Matcher{{Status: []int{409}}}}, []string{"answers.conflict[0]", "statuses.in_flight", "409"}},
		{"a 2xx refusal against the default created", model.Answers{Conflict: []model.Matcher{{Status: []int{200}, Equals: eq("/errors/0/code", "CONFLICT")}}},
			[]string{"created (by default any 2xx)", "answers.conflict[0]", "200", "cannot prove"}},
		{"conditions on different pointers", model.Answers{Conflict: []model.Matcher{{Status: []int{400}, Equals: eq("/code", "REUSED")}}, Invalid: []model.Matcher{{Status: []int{400}, Equals: eq("/type", "missing")}}},
			[]string{"answers.conflict[0]", "answers.invalid[0]", "cannot prove"}},
		{"two regexps on one pointer", model.Answers{Conflict: []model.Matcher{{Status: []int{400}, Matches: eq("/code", "^R")}}, Invalid: []model.Matcher{{Status: []int{400}, Matches: eq("/code", "^M")}}},
			[]string{"cannot prove"}},
		{"a condition against none", model.Answers{Conflict: []model.Matcher{{Status: []int{400}, Equals: eq("/code", "REUSED")}}, Invalid: []model.Matcher{{Status: []int{400}}}},
			[]string{"answers.conflict[0]", "answers.invalid[0]"}},
		{"created and replayed with two ID pointers", model.Answers{Created: []model.Matcher{{Status: []int{200}}}, Replayed: []model.Matcher{{Status: []int{200}, ID: "/existing/id"}}},
			[]string{"answers.created[0]", "answers.replayed[0]"}},
		{"graphql", graphql().Answers, nil},
		{"graphql with a server error", graphqlServerError().Answers, nil},
		{"a 5xx server error", model.Answers{ServerError: []model.Matcher{{Status: []int{500, 503}}}}, nil},
		{"2xx server error without a condition", model.Answers{ServerError: []model.Matcher{{Status: []int{200}}}}, []string{"answers.server_error[0]", "200 is not an error status"}},
		{"a 2xx server error against the default created", model.Answers{ServerError: []model.Matcher{{Status: []int{200}, Equals: eq("/errors/0/extensions/code", "INTERNAL_SERVER_ERROR")}}},
			[]string{"created (by default any 2xx)", "answers.server_error[0]", "200"}},
		{"server error and conflict on one code", model.Answers{Created: graphql().Answers.Created, Conflict: []model.Matcher{{Status: []int{200}, Present: []string{"/errors/0"}}},
			ServerError: []model.Matcher{{Status: []int{200}, Equals: eq("/errors/0/extensions/code", "INTERNAL_SERVER_ERROR")}}},
			[]string{"answers.conflict[0]", "answers.server_error[0]", "cannot prove"}},
		{"server error against a 5xx in flight", model.Answers{ServerError: []model.Matcher{{Status: []int{503}}}, InFlight: []model.Matcher{{Status: []int{503}}}},
			[]string{"answers.in_flight[0]", "answers.server_error[0]", "503"}},
		{"ID on a server error", model.Answers{ServerError: []model.Matcher{{Status: []int{500}, ID: "/id"}}}, []string{"answers.server_error[0]", "id: only created and replayed"}},
		{"absent against present below it", model.Answers{Created: []model.Matcher{{Status: []int{200}, Absent: []string{"/errors"}}}, Conflict: []model.Matcher{{Status: []int{200}, Present: []string{"/errors/0"}}}}, nil},
		{"absent against a condition elsewhere", model.Answers{Created: []model.Matcher{{Status: []int{200}, Absent: []string{"/errors"}}}, Conflict: []model.Matcher{{Status: []int{200}, Equals: eq("/error/code", "X")}}},
			[]string{"answers.created[0]", "answers.conflict[0]", "cannot prove"}},
		{"present without absent", model.Answers{Created: []model.Matcher{{Status: []int{200}, Present: []string{"/data/createPayment"}}}, Conflict: []model.Matcher{{Status: []int{200}, Present: []string{"/errors/0"}}}},
			[]string{"answers.created[0]", "answers.conflict[0]"}},
		{"absent and present at once", model.Answers{Created: []model.Matcher{{Status: []int{200}, Present: []string{"/data"}, Absent: []string{"/data"}}}}, []string{"answers.created[0]", "absent: /data"}},
		{"absent not a pointer", model.Answers{Created: []model.Matcher{{Status: []int{200}, Absent: []string{"errors"}}}}, []string{"answers.created[0]", `absent: "errors" is not a JSON pointer`}},
		{"a 2xx refusal with only present", model.Answers{Created: []model.Matcher{{Status: []int{200}, Absent: []string{"/errors"}}}, Conflict: []model.Matcher{{Status: []int{200}, Present: []string{"/errors"}}}}, nil},
		{"equals against a regexp that refuses it", model.Answers{Conflict: []model.Matcher{{Status: []int{400}, Equals: eq("/code", "IDEMPOTENCY_KEY_REUSED")}}, Invalid: []model.Matcher{{Status: []int{400}, Matches: eq("/code", "^MISSING")}}}, nil},
		{"equals against a regexp that takes it", model.Answers{Conflict: []model.Matcher{{Status: []int{400}, Equals: eq("/code", "MISSING_KEY")}}, Invalid: []model.Matcher{{Status: []int{400}, Matches: eq("/code", "^MISSING")}}},
			[]string{"answers.conflict[0]", "answers.invalid[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := model.DefaultContract()
			if tt.name == "gocardless" {
				c = gocardless()
			}
			c.Answers = tt.answers
			err := reference.CheckAnswers(c)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckAnswers: %v; want it accepted", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckAnswers accepted %+v; want an error with %q", tt.answers, tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckAnswers: %v; want it to say %q", err, w)
				}
			}
		})
	}
}

// Expected says what the contract takes for an outcome, shorthand or not.
func TestExpected(t *testing.T) {
	for _, tc := range []struct {
		c          model.Contract
		name, want string
	}{
		{model.DefaultContract(), "invalid", "{status: [400]}"},
		{model.DefaultContract(), "created", "{status: [2xx]}"},
		{model.DefaultContract(), "replayed", "none"},
		{square(), "invalid", `{status: [400], matches: {/errors/0/code: "^MISSING_"}}`},
		{graphql(), "created", `{status: [200], present: [/data/createPayment], absent: [/errors], id: /data/createPayment/id}`},
		{gocardless(), "replayed", `{status: [409], equals: {/error/errors/0/reason: "idempotent_creation_conflict"}, id: /error/links/conflicting_resource_id}`},
	} {
		if got := reference.Expected(tc.c, tc.name); got != tc.want {
			t.Errorf("Expected(%s) = %s, want %s", tc.name, got, tc.want)
		}
	}
}
