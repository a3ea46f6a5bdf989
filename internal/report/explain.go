// Package report renders what a run found: a table for people, JSON for
// machines, JUnit XML for CI, the explanation of a failure (plan, history,
// violations), and its timeline as a self-contained HTML page.
package report

import (
	"fmt"
	"strings"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// Explain renders a failing case for people: the minimal plan, the
// history in the order things started (what each call sent and got, and
// each fault as it happened), and every violation with its details.
func Explain(plan model.Plan, h model.History, vs []checks.Violation) string {
	var b strings.Builder
	b.WriteString("minimal plan:\n")
	for _, line := range strings.Split(strings.TrimSpace(plan.String()), "\n") {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString("history:\n")
	ds := h.Deliveries
	for _, ev := range h.Events() {
		// A sink's deliveries in their place: before what started after them.
		for len(ds) > 0 && (ev.Op != nil && ds[0].Time < ev.Op.Start || ev.Fault != nil && ds[0].Time < ev.Fault.Start) {
			b.WriteString("  " + delivery(ds[0]) + "\n")
			ds = ds[1:]
		}
		if ev.Fault != nil {
			b.WriteString("  " + fault(*ev.Fault) + "\n")
			continue
		}
		b.WriteString("  " + op(*ev.Op) + "\n")
	}
	for _, d := range ds {
		b.WriteString("  " + delivery(d) + "\n")
	}
	b.WriteString("violations:\n")
	for _, v := range vs {
		b.WriteString("  " + v.Message + "\n      " + v.Detail + "\n")
	}
	// Bodies, IDs and errors come from the service: shown, never obeyed.
	return model.Printable(b.String())
}

// op renders one call of a history on one line, with what it sent.
func op(op model.Op) string {
	s := fmt.Sprintf("step %d: %s body %s -> %s", op.Step+1, op.Call, op.Shown(), op.Out)
	if len(op.Out.Body) > 0 && (op.Out.Kind == model.Other || op.Out.ServerError()) {
		// An answer outside the contract, or a server error: show what it said.
		s += " answer " + op.Out.Body.String()
	}
	return s
}

// fault renders one nemesis operation of a history on one line.
func fault(ev model.FaultEvent) string {
	return fmt.Sprintf("step %d: fault %s", ev.Step+1, ev)
}

// delivery renders one request a sink received on one line.
func delivery(d model.Delivery) string {
	what := "accepted"
	switch {
	case d.Fault != model.SinkNone && !d.Accepted:
		what = "refused (" + string(d.Fault) + ")"
	case !d.Accepted:
		what = "given up by the sender"
	}
	return fmt.Sprintf("delivery to %s: %s %s body %s", d.Sink, d.Method, what, d.Body)
}

// IDs joins check IDs with commas; "-" for none.
func IDs(ids []checks.ID) string {
	if len(ids) == 0 {
		return "-"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ",")
}
