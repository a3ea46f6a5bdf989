package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/report"
)

// The explanation lists a sink's deliveries among the calls and faults,
// where they arrived: a phantom event before the restart that followed
// the crash, the retry's event after the retry.
func TestExplainListsDeliveries(t *testing.T) {
	f := crashFinding()
	h := f.History
	restartAt := h.Faults[len(h.Faults)-1].Start
	h.Deliveries = []model.Delivery{
		{Sink: "webhooks", Method: "POST", Time: restartAt - 1, Fault: model.Sink500, Body: model.Body(`{"event_id":"evt_1"}`)},
		{Sink: "webhooks", Method: "POST", Time: h.Ops[len(h.Ops)-1].End + 1, Accepted: true, Body: model.Body(`{"event_id":"evt_2"}`)},
	}
	got := report.Explain(f.Plan, h, f.Violations)
	refused := strings.Index(got, `delivery to webhooks: POST refused (500) body {"event_id":"evt_1"}`)
	restart := strings.Index(got, "step 3: fault restart fired")
	retry := strings.Index(got, "step 4: A/k1 v0 body")
	accepted := strings.Index(got, `delivery to webhooks: POST accepted body {"event_id":"evt_2"}`)
	if refused < 0 || restart < 0 || retry < 0 || accepted < 0 || !(refused < restart && restart < retry && retry < accepted) {
		t.Errorf("explanation does not list the deliveries where they arrived:\n%s", got)
	}
}

// The timeline lists the deliveries under the plan, on its clock, and a
// history without any shows no such section.
func TestTimelineListsDeliveries(t *testing.T) {
	f := crashFinding()
	var plain bytes.Buffer
	if err := report.WriteTimelineHTML(&plain, "t", f); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "Deliveries") {
		t.Errorf("a history without deliveries lists some")
	}
	f.History.Deliveries = []model.Delivery{{Sink: "webhooks", Method: "POST", Time: f.History.Ops[0].Start, Accepted: true, Body: model.Body(`{"event_id":"evt_1"}`)}}
	var b bytes.Buffer
	if err := report.WriteTimelineHTML(&b, "t", f); err != nil {
		t.Fatal(err)
	}
	if want := ` ms: delivery to webhooks: POST accepted body {&#34;event_id&#34;:&#34;evt_1&#34;}</li>`; !strings.Contains(b.String(), want) {
		t.Errorf("timeline lacks %s:\n%s", want, b.String())
	}
}
