package effects

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// A sink's deliveries are effects beyond the database, judged like rows:
// each belongs to the action its body names (effect.DeliveryOf),
// an action's events are counted against the sink's per_action, and a
// delivery's fields must be the winning payload's. What a sink adds is
// the commit: an event may only announce an action that committed (its
// rows are there), and every committed action's event must arrive.
// Under exactly-once an event is an accepted delivery (an attempt the
// sink refused may be sent again); under at-least-once an event is an
// event ID, however often it came, and an ID is kept across retries.

// sinkChecks judge the history's deliveries, sink by sink.
func sinkChecks(in Input, actions map[model.Action]*Promised) []Finding {
	if len(in.Sinks) == 0 {
		return nil
	}
	committed := committedRows(in)
	var vs []Finding
	for _, s := range in.Sinks {
		byAction := map[model.Action][]model.Delivery{}
		for _, d := range in.History.Deliveries {
			if d.Sink != s.Name {
				continue
			}
			if a, ok := effect.DeliveryOf(in.Contract, in.NS, s, d.Body); ok {
				byAction[a] = append(byAction[a], d)
			}
		}
		for a, ds := range byAction {
			ids, ok := committed[a]
			if !ok {
				vs = append(vs, violation(PhantomDelivery, a, "sink "+s.Name+" received an event of an action that never committed",
					fmt.Sprintf("action %s has no rows, yet %s", a, showDeliveries(s, ds))))
				continue
			}
			vs = append(vs, eventChecks(s, a, ds, faultkind.ReplicaStops(in.History))...)
			vs = append(vs, announcedIDs(s, a, ds, ids)...)
			if info := actions[a]; info != nil {
				for _, d := range ds {
					vs = append(vs, deliveryFields(in, s, a, info, d)...)
				}
			}
		}
		for a := range committed {
			if n, want := len(events(s, byAction[a], true)), s.EventsPerAction(); n < want {
				vs = append(vs, violation(LostDelivery, a, fmt.Sprintf("a committed action's event never reached sink %s within delivery_within", s.Name),
					fmt.Sprintf("action %s: %d of %d event(s) accepted within %s; %s", a, n, want, s.Within(), showDeliveries(s, byAction[a]))))
			}
		}
	}
	return vs
}

// eventChecks count a committed action's events at sink s; stops are
// when a replica of the service stopped (model.History.ReplicaStops).
func eventChecks(s effect.Sink, a model.Action, ds []model.Delivery, stops []int64) []Finding {
	want := s.EventsPerAction()
	if s.Mode() == effect.ExactlyOnce {
		if n := len(events(s, ds, true)); n > want {
			return []Finding{violation(DuplicateDelivery, a, fmt.Sprintf("an action's event was accepted more than %d time(s) by sink %s (exactly-once)", want, s.Name),
				fmt.Sprintf("action %s: %s", a, showDeliveries(s, ds)))}
		}
		return nil
	}
	all := events(s, ds, false)
	if len(all) <= want {
		return nil
	}
	if id, ok := replacedID(s, ds, stops); ok {
		return []Finding{violation(EventIDChanged, a, fmt.Sprintf("a delivery retried after sink %s refused it carried a new event ID", s.Name),
			fmt.Sprintf("action %s: event %q was never accepted, nor sent again once the next event came; %s", a, id, showDeliveries(s, ds)))}
	}
	return []Finding{violation(DuplicateDelivery, a, fmt.Sprintf("an action's deliveries to sink %s carry more than %d event ID(s) (at-least-once)", s.Name, want),
		fmt.Sprintf("action %s: %s", a, showDeliveries(s, ds)))}
}

// replacedID finds an event, under at-least-once, that another took the
// place of: never accepted, and never sent again once the next event ID
// had come. An event still retried after another ID came is a second
// event of the action (a replay that sent one more), not a retry under a
// new ID: that is a duplicate, whatever the sink did to either. So is
// one whose sender stopped after its last attempt (a replica restarted
// or crashed, stops): its retries died with the process that held them
// in memory, which says nothing of the other ID, maybe a later call's
// own event.
func replacedID(s effect.Sink, ds []model.Delivery, stops []int64) (string, bool) {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i], _ = payloads.Pointer(d.Body, s.EventID)
	}
	open := effect.OpenEvents(s, ds, stops)
	all := events(s, ds, false)
	for k, id := range all[:len(all)-1] {
		next := slices.Index(ids, all[k+1])
		if slices.Contains(open, id) && !slices.Contains(ids[next:], id) {
			return id, true
		}
	}
	return "", false
}

// events are the distinct events of deliveries ds in the order they
// first came, those accepted only when accepted is set: under
// exactly-once each delivery is one, under at-least-once each event ID.
func events(s effect.Sink, ds []model.Delivery, accepted bool) []string {
	var out []string
	for i, d := range ds {
		if accepted && !d.Accepted {
			continue
		}
		id := fmt.Sprint(i)
		if s.Mode() == effect.AtLeastOnce {
			id, _ = payloads.Pointer(d.Body, s.EventID)
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// announcedIDs: a delivery's resource ID (the sink's id:) must be the ID
// of a row the action committed, not one a rolled-back attempt made.
func announcedIDs(s effect.Sink, a model.Action, ds []model.Delivery, committed []string) []Finding {
	if s.ID == "" {
		return nil
	}
	for _, d := range ds {
		if id, _ := payloads.Pointer(d.Body, s.ID); !slices.Contains(committed, id) {
			return []Finding{violation(PhantomDelivery, a, "sink "+s.Name+" received an event announcing a resource the action never committed",
				fmt.Sprintf("action %s: a delivery announces id %s, committed: %s; %s", a, model.ShowID(id), strings.Join(committed, ", "), showDeliveries(s, ds)))}
		}
	}
	return nil
}

// deliveryFields compare a delivery's fields with the winning payload, as
// a row's are: the delivery stands for a row of a table named after the
// sink, its fields for columns.
func deliveryFields(in Input, s effect.Sink, a model.Action, info *Promised, d model.Delivery) []Finding {
	if len(s.Fields) == 0 {
		return nil
	}
	r := model.Row{Fields: map[string]string{}}
	for ptr := range s.Fields {
		if v, ok := payloads.Pointer(d.Body, ptr); ok && v != "null" {
			r.Fields[ptr] = v
		}
	}
	return fieldChecks(effect.Effect{Table: "sink " + s.Name, Fields: s.Fields}, a, sentWinners(in, a, info.Winners), r)
}

// Committed lists the actions with rows in some effect table: those
// whose events a sink must receive. A run waits for them before judging.
func Committed(in Input) []model.Action {
	var out []model.Action
	for a := range committedRows(in) {
		out = append(out, a)
	}
	return out
}

// committedRows are the actions with rows in some effect table, each with
// the IDs of its rows in the first effect table that has an id column.
func committedRows(in Input) map[model.Action][]string {
	out := map[model.Action][]string{}
	owner := map[string]map[string]model.Action{}
	idTable := ""
	for _, e := range in.Effects {
		if e.ID != "" {
			idTable = e.Table
			break
		}
	}
	for _, e := range effect.JoinedLast(in.Effects) {
		owner[e.Table] = map[string]model.Action{}
		for _, r := range in.Rows[e.Table] {
			a, problem := attribute(in, e, r, owner)
			if problem != rowOK && problem != foreignTenantRow {
				continue
			}
			if e.ID != "" {
				owner[e.Table][r.ID] = a
			}
			ids := out[a]
			if e.Table == idTable {
				ids = append(ids, r.ID)
			}
			out[a] = ids
		}
	}
	return out
}

// showDeliveries lists an action's deliveries for a violation's detail:
// "2 deliveries to webhooks: at 12ms accepted event "evt_1", …".
func showDeliveries(s effect.Sink, ds []model.Delivery) string {
	if len(ds) == 0 {
		return "no delivery to " + s.Name
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("at %s %s", time.Duration(d.Time).Round(time.Millisecond), acceptance(d))
		if s.EventID != "" {
			id, _ := payloads.Pointer(d.Body, s.EventID)
			parts[i] += fmt.Sprintf(" event %q", id)
		}
	}
	return fmt.Sprintf("%d deliveries to %s: %s", len(ds), s.Name, strings.Join(parts, ", "))
}

func acceptance(d model.Delivery) string {
	switch {
	case d.Accepted:
		return "accepted"
	case d.Fault == model.SinkNone:
		return "given up by the sender"
	}
	return "refused (" + string(d.Fault) + ")"
}
