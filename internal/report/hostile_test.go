package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/report"
)

// A hostile service's IDs and bodies reach the table and the explanation
// as text: terminal control sequences escaped, a 60,000-character ID cut
// as a body is.
func TestHostileAnswersAreShownNotObeyed(t *testing.T) {
	longID := strings.Repeat("9", 60000)
	call := model.Call{Tenant: "A", Key: "k1"}
	plan := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{call}}, {Kind: model.StepCall, Calls: []model.Call{call}}}}
	h := model.History{Ops: []model.Op{
		{Step: 0, Call: call, Body: model.Body(`{}`), Out: model.Outcome{Kind: model.OK, Status: 201, ID: "\x1b[2J\x1b]0;pwned\x07"}},
		{Step: 1, Call: call, Body: model.Body(`{}`), Out: model.Outcome{Kind: model.OK, Status: 200, ID: longID}},
		{Step: 1, Call: call, Body: model.Body(`{}`), Out: model.Outcome{Kind: model.Other, Status: 500, Body: model.Body("\x1b[31mboom\u202e")}},
	}}
	vs := []checks.Violation{{Check: checks.UnstableResponse, Message: "IDEM-003 unstable response: x", Detail: "id \x1b[2J"}}
	c := report.Row{Target: "http://t/\x1b[2J", Verdict: checks.Fail, Checks: []checks.ID{checks.UnstableResponse},
		MinimalPlan: &plan, MinimalSteps: 2, MinimalCalls: 2, History: h, Violations: vs, Error: "the service said \x1b]0;title\x07"}
	var out bytes.Buffer
	if err := report.WriteTable(&out, []report.Row{c}); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"table": out.String(), "explanation": report.Explain(plan, h, vs)} {
		if i := strings.IndexAny(s, "\x1b\x07\u202e"); i >= 0 {
			t.Errorf("%s holds a raw control character at %d: %.80q", name, i, s[max(0, i-20):])
		}
		if !strings.Contains(s, `\x1b[2J`) {
			t.Errorf("%s does not show the escape sequence as text:\n%s", name, s)
		}
		if len(s) > 4000 {
			t.Errorf("%s is %d bytes: the 60000-character ID was not cut", name, len(s))
		}
	}
}

// A JSON document goes whole through a writer that cuts lines: its
// messages are cut before encoding, and a line that escaping makes long
// (4 KiB of "<", each written \u003c) is not cut inside the document.
func TestEncodeJSONStaysValidThroughACuttingWriter(t *testing.T) {
	row := report.Row{Verdict: checks.Fail, Error: model.CutLines(strings.Repeat("x", 200<<10)),
		Violations: []checks.Violation{{Check: checks.ChangedAccepted, Message: "IDEM-004 x", Detail: strings.Repeat("<", 200<<10)}}}
	var out bytes.Buffer
	if err := report.EncodeJSON(report.PrintableWriter{W: &out, Cut: true}, []report.Row{row}); err != nil {
		t.Fatal(err)
	}
	var back []report.Row
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	if d := back[0].Violations[0].Detail; len(d) > model.MaxLine+64 || !strings.Contains(d, "line cut: 204800 bytes") {
		t.Errorf("detail of %d bytes: %.60q…", len(d), d)
	}
	if e := back[0].Error; len(e) > model.MaxLine+64 || !strings.Contains(e, "line cut") {
		t.Errorf("error of %d bytes", len(e))
	}
}
