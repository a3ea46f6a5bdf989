package stress

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/sink"
)

// sinkPoll is how often the deliveries are looked at while waiting.
const sinkPoll = 10 * time.Millisecond

// receiver is a running sink and its declaration.
type receiver struct {
	spec effect.Sink
	inbox
}

// inbox is what a sink received: an HTTP receiver's requests
// (sink.Receiver), or a Redis sink's messages (sink.Reader), which Read
// reads from the Redis.
type inbox interface {
	Read(ctx context.Context) error
	Peek(t0 time.Time, belongs func(body []byte) bool) []model.Delivery
	Take(t0 time.Time, belongs func(body []byte) bool) []model.Delivery
}

// startSinks starts a receiver for each sink and hands the service their
// URLs: {sink.NAME.url} in its command and environment (a copy of the
// caller's process spec).
func (s *Session) startSinks() error {
	var subs []string
	for _, spec := range s.cfg.Sinks {
		if spec.Redis != nil {
			continue // read once its Redis runs (startRedisSinks)
		}
		r, err := sink.Start(spec)
		if err != nil {
			return fmt.Errorf("%w: %w", errInfrastructure, err)
		}
		s.closers = append(s.closers, func() { _ = r.Close() })
		s.sinks = append(s.sinks, receiver{spec, r})
		subs = append(subs, spec.Placeholder(), r.URL())
	}
	if s.cfg.Process == nil || len(subs) == 0 {
		return nil
	}
	spec := *s.cfg.Process
	rep := strings.NewReplacer(subs...)
	spec.Command, spec.Env = slices.Clone(spec.Command), slices.Clone(spec.Env)
	for i := range spec.Command {
		spec.Command[i] = rep.Replace(spec.Command[i])
	}
	for i := range spec.Env {
		spec.Env[i] = rep.Replace(spec.Env[i])
	}
	s.cfg.Process = &spec
	return nil
}

// deliveries waits for the events of a plan's actions and returns what
// the sinks received for namespace ns, in the order it arrived. The
// actions whose events must come are those answered ok and those with
// rows (a call cut off by a crash after its commit); it waits until each
// has its events accepted and nothing new came for the sink's quiet
// (model.Sink.QuietFor: a duplicate sent right after the first, a
// replay's, still arrives), or the
// sink's delivery_within has passed.
//
// A wait cut short by ctx (the shrink budget ending) is no verdict: an
// event not yet in would read as lost, so it returns ErrInterrupted.
func (s *Session) deliveries(ctx context.Context, ns model.Namespace, h model.History, rows model.Snapshot, t0 time.Time) ([]model.Delivery, error) {
	if len(s.sinks) == 0 {
		return nil, nil
	}
	due := s.due(ns, h, rows)
	var out []model.Delivery
	for _, r := range s.sinks {
		got, err := s.await(ctx, r, ns, due, nil, t0, r.spec.Within())
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	slices.SortStableFunc(out, func(a, b model.Delivery) int { return cmp.Compare(a.Time, b.Time) })
	return out, nil
}

// dueEvents are what a plan's deliveries are awaited for: the actions
// whose events must come (those answered ok and those with rows), and
// when a replica of the service stopped (model.History.ReplicaStops).
type dueEvents struct {
	actions map[model.Action]bool
	stops   []int64
}

// due are the events plan history h must bring.
func (s *Session) due(ns model.Namespace, h model.History, rows model.Snapshot) dueEvents {
	due := dueEvents{actions: map[model.Action]bool{}, stops: faultkind.ReplicaStops(h)}
	for _, a := range checks.Committed(checks.Input{Contract: s.cfg.Contract, Effects: s.cfg.Effects, NS: ns, History: h, Rows: rows}) {
		due.actions[a] = true
	}
	for _, op := range h.Ops {
		if op.Out.Kind == model.OK && !op.Call.NoKey {
			due.actions[s.cfg.Contract.ActionOf(op.Call)] = true
		}
	}
	return due
}

// await waits up to within for receiver r's deliveries of namespace ns
// (beyond had, those already taken) to hold the events of every action
// due, and takes them.
func (s *Session) await(ctx context.Context, r receiver, ns model.Namespace, due dueEvents, had []model.Delivery, t0 time.Time, within time.Duration) ([]model.Delivery, error) {
	belongs := func(body []byte) bool { _, ok := effect.DeliveryOf(s.cfg.Contract, ns, r.spec, body); return ok }
	deadline := time.Now().Add(within)
	seen, changed := -1, time.Now()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		// A Redis restarted by a plan's fault may not answer for a while:
		// the last read, before Take, says whether it came back.
		_ = r.Read(ctx)
		got := r.Peek(t0, belongs)
		if len(got) != seen {
			seen, changed = len(got), time.Now()
		}
		if time.Since(changed) >= r.spec.QuietFor() && s.delivered(ns, r.spec, due, slices.Concat(had, got)) {
			break
		}
		time.Sleep(sinkPoll)
	}
	if err := r.Read(ctx); err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("%w: %w", errInfrastructure, err)
	}
	got := r.Take(t0, belongs)
	if ctx.Err() != nil {
		return nil, stopped(ctx, ctx.Err())
	}
	return got, nil
}

// lateLook is the second look at the sinks before a lost delivery
// (IDEM-022) or a replaced event ID (IDEM-021) is reported: a relay held
// up by the load (earlier plans' slow deliveries before this plan's, a
// loaded machine) may send an event, or a refused event again, after
// delivery_within, and an event that comes late is neither lost nor
// replaced.
// It waits up to each sink's delivery_within once more for the events
// still missing and, when some came, judges the plan again with them.
// An IDEM-022 that the late events clear is a note naming
// delivery_within, not a bug.
func (s *Session) lateLook(ctx context.Context, tr *Trial, rows model.Snapshot, t0 time.Time) error {
	if !slices.ContainsFunc(tr.Violations, func(v checks.Violation) bool {
		return v.Check == checks.LostDelivery || v.Check == checks.EventIDChanged
	}) {
		return nil
	}
	due := s.due(tr.NS, tr.History, rows)
	var late []model.Delivery
	var cleared []receiver
	for _, r := range s.sinks {
		had := slices.DeleteFunc(slices.Clone(tr.History.Deliveries), func(d model.Delivery) bool { return d.Sink != r.spec.Name })
		if s.delivered(tr.NS, r.spec, due, had) {
			continue
		}
		got, err := s.await(ctx, r, tr.NS, due, had, t0, r.spec.Within())
		if err != nil {
			return err
		}
		late = append(late, got...)
		if len(got) > 0 {
			cleared = append(cleared, r)
		}
	}
	if len(late) == 0 {
		return nil
	}
	tr.History.Deliveries = append(tr.History.Deliveries, late...)
	slices.SortStableFunc(tr.History.Deliveries, func(a, b model.Delivery) int { return cmp.Compare(a.Time, b.Time) })
	tr.Violations = checks.Evaluate(checks.Input{Contract: s.cfg.Contract, Effects: s.cfg.Effects, Sinks: s.cfg.Sinks, NS: tr.NS, History: tr.History, Rows: rows})
	for _, r := range cleared {
		tr.Notes = append(tr.Notes, fmt.Sprintf("sink %s: an event came after delivery_within (%s), within that long again: "+
			"a late event, not a lost one (IDEM-022) nor one replaced (IDEM-021); if the service's deliveries lag this much, give the sink a longer delivery_within",
			r.spec.Name, r.spec.Within()))
	}
	return nil
}

// delivered reports whether every action due has its events accepted by
// sink spec and, under at-least-once, every event ID that came accepted
// too: a refused event is sent again under its ID by a correct service,
// and judging before it comes would read a replay's second event as one
// retried under a new ID (IDEM-021). An event whose sender stopped after
// its last attempt is not waited for: its retries, if held in memory,
// died with the process, and the check reads it so too.
func (s *Session) delivered(ns model.Namespace, spec effect.Sink, due dueEvents, got []model.Delivery) bool {
	accepted := map[model.Action]int{}
	var mine []model.Delivery
	for _, d := range got {
		a, ok := effect.DeliveryOf(s.cfg.Contract, ns, spec, d.Body)
		if !ok {
			continue
		}
		mine = append(mine, d)
		if d.Accepted {
			accepted[a]++
		}
	}
	for a := range due.actions {
		if accepted[a] < spec.EventsPerAction() {
			return false
		}
	}
	return len(effect.OpenEvents(spec, mine, due.stops)) == 0
}
