package contract_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// answers: in a contract file: statuses as numbers, classes or one
// number, body conditions and an ID pointer per matcher.
func TestParseAnswers(t *testing.T) {
	valid := string(ticketsvc.Contract)
	withoutStatuses := valid[:strings.Index(valid, "statuses:")] + valid[strings.Index(valid, "equivalence:"):]
	cfg, err := contract.Parse("ok.yaml", []byte(withoutStatuses+`
answers:
  created: [{status: 2xx}]
  replayed:
    - status: 409
      equals: {/error/code: 409, /error/reason: idempotent_creation_conflict}
      id: /error/links/id
  conflict: [{status: [400], matches: {/errors/0/code: "^IDEMPOTENCY_KEY_REUSED$"}}]
  invalid: [{status: [400], equals: {/errors/0/code: MISSING_REQUIRED_PARAMETER}}]
  in_flight: [{status: 425}]
`))
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Contract.Answers
	if len(a.Created) != 1 || !slices.Equal(a.Created[0].Status, model.AnyStatus(2)) {
		t.Errorf("created: %+v, want every 2xx", a.Created)
	}
	if len(a.Replayed) != 1 || !slices.Equal(a.Replayed[0].Status, []int{409}) || a.Replayed[0].Equals["/error/code"] != "409" || a.Replayed[0].ID != "/error/links/id" {
		t.Errorf("replayed: %+v", a.Replayed)
	}
	if got := reference.Read(cfg.Contract, model.Answer{Status: 409, Body: []byte(`{"error":{"code":409,"reason":"idempotent_creation_conflict","links":{"id":"7"}}}`)}); got.Kind != model.OK || got.ID != "7" {
		t.Errorf("a replay read as %+v, want ok with ID 7", got)
	}
	if got := reference.Read(cfg.Contract, model.Answer{Status: 400, Body: []byte(`{"errors":[{"code":"IDEMPOTENCY_KEY_REUSED"}]}`)}); got.Kind != model.Conflict {
		t.Errorf("a reused key read as %+v, want conflict", got)
	}

	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"an outcome in both", valid + "\nanswers: {conflict: [{status: [400], equals: {/code: REUSED}}]}\n", []string{"answers.conflict", "statuses.conflict", "keep one"}},
		{"no status", withoutStatuses + "\nanswers: {conflict: [{equals: {/code: REUSED}}]}\n", []string{"answers.conflict[0]", "no status"}},
		{"a status that is no number", withoutStatuses + "\nanswers: {conflict: [{status: [four hundred]}]}\n", []string{"line", "four hundred", "4xx"}},
		{"an unknown matcher field", withoutStatuses + "\nanswers: {conflict: [{status: [400], body: {/code: X}}]}\n", []string{"unknown field", "body"}},
		{"an unknown outcome", withoutStatuses + "\nanswers: {duplicate: [{status: [400]}]}\n", []string{"unknown field", "duplicate"}},
		{"ambiguous", withoutStatuses + "\nanswers: {conflict: [{status: [400]}], invalid: [{status: [400], equals: {/code: MISSING}}]}\n",
			[]string{"answers.conflict[0]", "answers.invalid[0]", "400", "one thing"}},
		{"a 2xx conflict", withoutStatuses + "\nanswers: {conflict: [{status: [200]}]}\n", []string{"answers.conflict[0]", "200", "body condition"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := contract.Parse("bad.yaml", []byte(tc.yaml))
			if !errors.Is(err, contract.ErrContract) {
				t.Fatalf("err %v, want ErrContract", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
}
