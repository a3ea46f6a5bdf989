package report_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/report"
)

// crashFinding is the history of a crash case: a call cut off by a crash
// of its replica, a call made while the replica was down, a restart step,
// and the retry after it; the crash and the restart are events of the
// history, as the executor records them.
func crashFinding() report.JUnitFailure {
	ms := int64(time.Millisecond)
	crashed := model.Call{Tenant: "A", Key: "k1", Fault: model.FaultCrash}
	plain := model.Call{Tenant: "A", Key: "k1"}
	plan := model.Plan{Steps: []model.Step{
		{Kind: model.StepCall, Calls: []model.Call{crashed}},
		{Kind: model.StepCall, Calls: []model.Call{plain}},
		{Kind: model.StepRestart},
		{Kind: model.StepCall, Calls: []model.Call{plain}},
	}}
	h := model.History{
		Ops: []model.Op{
			{Step: 0, Call: crashed, Body: []byte(`{"subject":"x"}`), Start: 2 * ms, End: 9 * ms, Out: model.Outcome{Kind: model.Unknown, Err: "EOF"}},
			{Step: 1, Call: plain, Body: []byte(`{"subject":"x"}`), Start: 10 * ms, End: 10 * ms, Out: model.Outcome{Kind: model.Unknown, Err: "replica down after a crash, with no restart since"}},
			{Step: 3, Call: plain, Body: []byte(`{"subject":"x"}`), Start: 60 * ms, End: 62 * ms, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "9"}},
		},
		Faults: []model.FaultEvent{
			{Kind: model.FaultCrash, Step: 0, Start: 1 * ms, End: 9 * ms, Fired: true, Held: 1, Ops: []int{0, 1}},
			{Kind: model.FaultRestart, Step: 2, Start: 11 * ms, End: 58 * ms, Fired: true},
		},
	}
	vs := []checks.Violation{{Check: checks.MissingEffect, Message: "IDEM-002 missing or partial effect: an ok action lacks rows in notification_outbox",
		Detail: "action A/k1: 0 row(s) in notification_outbox", Action: model.Action{Tenant: "A", Key: "k1"}}}
	return report.JUnitFailure{Plan: plan, History: h, Violations: vs}
}

var (
	faultElem = regexp.MustCompile(`<g class="fault-event (fired|unfired)" data-fault="([^"]*)" data-label="([^"]*)" data-step="(\d+)" data-fired="(true|false)" data-touched="(\d+)"`)
	faultLane = regexp.MustCompile(`<text class="lanelabel faultlane" [^>]*>([^<]*)</text>`)
)

// checkFaults asserts one fault element per fault event of h, in order,
// each in a lane of its kind's below the calls.
func checkFaults(t *testing.T, dom string, h model.History) {
	t.Helper()
	got := faultElem.FindAllStringSubmatch(dom, -1)
	if len(got) != len(h.Faults) {
		t.Fatalf("%d fault elements, want %d (one per fault event)", len(got), len(h.Faults))
	}
	for i, ev := range h.Faults {
		want := []string{map[bool]string{true: "fired", false: "unfired"}[ev.Fired], string(ev.Kind), ev.String(),
			strconv.Itoa(ev.Step + 1), map[bool]string{true: "true", false: "false"}[ev.Fired], strconv.Itoa(len(ev.Ops))}
		for j, w := range want {
			if got[i][j+1] != w {
				t.Errorf("fault %d: attribute %d is %q, want %q", i, j, got[i][j+1], w)
			}
		}
	}
	var lanes []string
	for _, m := range faultLane.FindAllStringSubmatch(dom, -1) {
		lanes = append(lanes, m[1])
	}
	if strings.Join(lanes, ",") != "⚡ crash,⚡ restart" {
		t.Errorf("fault lanes %q, want one for crash and one for restart", lanes)
	}
}

// A crash case's page draws the crash and the restart as events in lanes
// of their own, says which calls the crash touched, and marks the call
// made while the replica was down with the crash.
func TestTimelineHTMLDrawsFaults(t *testing.T) {
	f := crashFinding()
	var b bytes.Buffer
	if err := report.WriteTimelineHTML(&b, "crash case", f); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkCalls(t, page, f.History)
	checkFaults(t, page, f.History)
	if !strings.Contains(page, "crash fired, held 1, touched calls 1, 2") {
		t.Errorf("the crash's label does not say which calls it touched")
	}
	// Silent without faults: a history of calls alone has no fault lane.
	b.Reset()
	if err := report.WriteTimelineHTML(&b, "no faults", timelineFinding()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `class="fault-event`) || strings.Contains(b.String(), `lanelabel faultlane"`) {
		t.Errorf("a history without fault events draws one")
	}
}

// In headless Chromium, the DOM of a crash case's page holds the crash
// and the restart as fault events, and the page's script counts them.
func TestTimelineFaultsInChromium(t *testing.T) {
	bin := chromium(t)
	f := crashFinding()
	dir, page := writePage(t, "crash case", f)
	dom := headless(t, bin, dir, "--dump-dom", "file://"+page)
	checkCalls(t, dom, f.History)
	checkFaults(t, dom, f.History)
	if !strings.Contains(dom, `data-faults="2"`) {
		t.Errorf("the page's script did not count 2 fault events in the DOM")
	}
}

// The explanation lists the faults among the calls, in the order things
// started: the crash before the call it cut off, the restart before the
// retry.
func TestExplainListsFaults(t *testing.T) {
	f := crashFinding()
	got := report.Explain(f.Plan, f.History, f.Violations)
	crash := strings.Index(got, "step 1: fault crash fired")
	cut := strings.Index(got, "step 1: A/k1 v0 [crash]")
	restart := strings.Index(got, "step 3: fault restart fired")
	retry := strings.Index(got, "step 4: A/k1 v0 body")
	if crash < 0 || cut < 0 || restart < 0 || retry < 0 || !(crash < cut && cut < restart && restart < retry) {
		t.Errorf("explanation does not list the faults in order with the calls:\n%s", got)
	}
}
