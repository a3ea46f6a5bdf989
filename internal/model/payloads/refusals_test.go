package payloads_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// ticketRules is the sample's contract with a rule of every kind.
func ticketRules() model.Contract {
	c := model.DefaultContract()
	c.Payload = map[string]any{"subject": "Printer offline", "priority": 3, "channel": "email", "weight": 0.5}
	c.Fields = map[string]model.FieldRule{
		"/subject":  {Required: true, MaxLen: 20},
		"/priority": {Int: &model.Range{Min: 1, Max: 5}},
		"/channel":  {Enum: []any{"email", "sms"}},
		"/weight":   {Number: &model.Range{Min: 0, Max: 1}},
	}
	return c
}

func TestBreakagesBreakEachRule(t *testing.T) {
	c := ticketRules()
	want := []string{
		"/channel = not-in-enum outside enum [email sms]",
		"/priority = 0 outside int {min: 1, max: 5}",
		"/subject left out, though required",
		"/subject longer than max_len 20",
		"/weight = -1 outside number {min: 0, max: 1}",
	}
	bs := payloads.Breakages(c)
	var got []string
	for _, b := range bs {
		got = append(got, b.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("breakages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Each broken body differs from the variant in the broken field only.
	bodies := map[string]string{
		"/channel":  `"channel":"not-in-enum"`,
		"/priority": `"priority":0`,
		"/weight":   `"weight":-1`,
	}
	for i, b := range bs {
		body := string(payloads.Render(c.Breaking(i+1), "", 1, 0))
		var doc map[string]any
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatalf("%s: broken body %s: %v", b, body, err)
		}
		switch b.Rule {
		case "required":
			if _, ok := doc["subject"]; ok {
				t.Errorf("%s: body %s still has the field", b, body)
			}
		case "max_len":
			if n := len([]rune(doc["subject"].(string))); n != 21 {
				t.Errorf("%s: subject has %d characters, want 21 (body %s)", b, n, body)
			}
		default:
			if !strings.Contains(body, bodies[b.Ptr]) {
				t.Errorf("%s: body %s lacks %s", b, body, bodies[b.Ptr])
			}
		}
	}
	if body := payloads.Render(c.Breaking(0), "", 1, 0); string(body) != string(payloads.Render(c, "", 1, 0)) {
		t.Errorf("Breaking(0) renders %s, want the variant itself", body)
	}
	c.Refusals = model.RefusalsUntested
	if bs := payloads.Breakages(c); len(bs) != 0 {
		t.Errorf("refusals: untested still breaks %v", bs)
	}
}

func TestBreakagesOfEnumsThatCannotBeLeft(t *testing.T) {
	c := model.DefaultContract()
	c.Payload = map[string]any{"urgent": true, "level": 2, "idempotency_key": "{{key}}"}
	c.Fields = map[string]model.FieldRule{"/urgent": {Enum: []any{true, false}}, "/level": {Enum: []any{1, 2, 7}}, "/subject": {Fixed: true},
		"/idempotency_key": {MaxLen: 64, Required: true}}
	bs := payloads.Breakages(c)
	if len(bs) != 1 || bs[0].String() != "/level = 8 outside enum [1 2 7]" {
		t.Fatalf("breakages = %v, want only /level = 8", bs)
	}
}

func TestCallShowsItsBreakage(t *testing.T) {
	for _, tt := range []struct {
		call model.Call
		want string
	}{
		{model.Call{Tenant: "A", Key: "k1", Broken: 1}, "A/k1 v0 !broken"},
		{model.Call{Tenant: "A", Key: "k1", Broken: 3, Fault: model.FaultLoseReply}, "A/k1 v0 !broken3 [lose-reply]"},
	} {
		if got := tt.call.String(); got != tt.want {
			t.Errorf("call = %q, want %q", got, tt.want)
		}
	}
	// A case file written before the field reads as an unbroken call.
	var c model.Call
	if err := json.Unmarshal([]byte(`{"tenant":"A","key":"k1","variant":0}`), &c); err != nil || c.Broken != 0 {
		t.Fatalf("old call = %+v, %v", c, err)
	}
	if b, _ := json.Marshal(model.Call{Tenant: "A", Key: "k1"}); strings.Contains(string(b), "broken") {
		t.Errorf("an unbroken call writes %s", b)
	}
}

func refusal(status int) model.Outcome {
	kind := model.Other
	switch status {
	case 400:
		kind = model.Invalid
	case 422:
		kind = model.Conflict
	}
	return model.Outcome{Kind: kind, Status: status}
}

func brokenOp(t *testing.T, out model.Outcome) model.Op {
	o := op(t, pOther, out)
	o.Call.Broken = 1
	return o
}

func TestWalkRefusedThenFixed(t *testing.T) {
	notStored := model.DefaultContract()
	stored := model.DefaultContract()
	stored.Refusals = model.RefusalsStored
	tests := []struct {
		name     string
		c        model.Contract
		ops      []model.Op
		findings []reference.BadAnswer
		final    []reference.State
	}{
		{"not stored: refused (400), then fixed and created", notStored, []model.Op{
			brokenOp(t, refusal(400)), op(t, p, ok("1")),
		}, nil, []reference.State{present(p, "1")}},
		{"not stored: a validation 422 where conflicts are 422 too is a refusal", notStored, []model.Op{
			brokenOp(t, refusal(422)), brokenOp(t, refusal(422)), op(t, p, ok("1")),
		}, nil, []reference.State{present(p, "1")}},
		{"not stored: any 4xx refuses a broken call", notStored, []model.Op{
			brokenOp(t, refusal(413)), op(t, p, ok("1")),
		}, nil, []reference.State{present(p, "1")}},
		{"not stored: the fixed call refused the same way met a saved refusal", notStored, []model.Op{
			brokenOp(t, refusal(400)), op(t, p, refusal(400)),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleRefusalReplayed}}, []reference.State{{Refused: 400}}},
		{"not stored: refused after the action was created changes nothing", notStored, []model.Op{
			op(t, p, ok("1")), brokenOp(t, refusal(400)), op(t, p, ok("1")),
		}, nil, []reference.State{present(p, "1")}},
		{"stored: the fixed call gets the saved refusal", stored, []model.Op{
			brokenOp(t, refusal(400)), op(t, p, refusal(400)), op(t, p, refusal(400)),
		}, nil, []reference.State{{Refused: 400}}},
		{"stored: a conflict for the fixed call's other payload", stored, []model.Op{
			brokenOp(t, refusal(400)), op(t, p, refusal(422)),
		}, nil, []reference.State{{Refused: 400}}},
		{"stored: the fixed call executed", stored, []model.Op{
			brokenOp(t, refusal(400)), op(t, p, ok("1")),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleRefusalNotReplayed}}, []reference.State{present(p, "1")}},
		{"stored: a broken call with no answer may have saved any refusal", stored, []model.Op{
			brokenOp(t, answer(model.Unknown)), op(t, p, refusal(403)),
		}, nil, []reference.State{{Refused: 403}}},
		{"stored: a broken call with no answer may have saved nothing", stored, []model.Op{
			brokenOp(t, answer(model.Unknown)), op(t, p, ok("1")),
		}, nil, []reference.State{present(p, "1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops := tt.ops
			for i := range ops {
				ops[i].Start, ops[i].End = int64(i*10), int64(i*10+5)
			}
			findings, final := reference.Walk(tt.c, ops)
			if !reflect.DeepEqual(findings, tt.findings) {
				t.Errorf("findings = %+v, want %+v", findings, tt.findings)
			}
			if !reflect.DeepEqual(final, tt.final) {
				t.Errorf("final states = %+v, want %+v", final, tt.final)
			}
		})
	}
}
