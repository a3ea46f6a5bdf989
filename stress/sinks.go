package stress

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/sink"
)

// checkSinks checks the contract's sinks: among themselves, their fields
// against the payload, and that the service can be told where they are.
func (c *Config) checkSinks() error {
	if err := model.ValidateSinks(c.Sinks); err != nil {
		return err
	}
	base := c.Contract.WithDefaults().Render("", 0, 0)
	for i, s := range c.Sinks {
		for _, body := range slices.Sorted(maps.Keys(s.Fields)) {
			if _, ok := model.Pointer(base, s.Fields[body]); !ok {
				return fmt.Errorf("sinks[%d].fields.%s: %q points at nothing in the payload %s", i, body, s.Fields[body], base)
			}
		}
		if c.Process == nil && s.Addr == "" {
			return fmt.Errorf("sinks[%d] (%s): idemstress does not start the service, so it cannot hand it %s; "+
				"give addr: 127.0.0.1:PORT and point the service's deliveries there", i, s.Name, s.Placeholder())
		}
	}
	return nil
}

// sinkPoll is how often the deliveries are looked at while waiting.
const sinkPoll = 10 * time.Millisecond

// receiver is a running sink and its declaration.
type receiver struct {
	spec model.Sink
	*sink.Receiver
}

// startSinks starts a receiver for each sink and hands the service their
// URLs: {sink.NAME.url} in its command and environment (a copy of the
// caller's process spec).
func (s *Session) startSinks() error {
	var subs []string
	for _, spec := range s.cfg.Sinks {
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
	due := map[model.Action]bool{}
	for _, a := range checks.Committed(checks.Input{Contract: s.cfg.Contract, Effects: s.cfg.Effects, NS: ns, History: h, Rows: rows}) {
		due[a] = true
	}
	for _, op := range h.Ops {
		if op.Out.Kind == model.OK && !op.Call.NoKey {
			due[s.cfg.Contract.ActionOf(op.Call)] = true
		}
	}
	var out []model.Delivery
	for _, r := range s.sinks {
		belongs := func(body []byte) bool { _, ok := s.cfg.Contract.DeliveryOf(ns, r.spec, body); return ok }
		deadline := time.Now().Add(r.spec.Within())
		seen, changed := -1, time.Now()
		for time.Now().Before(deadline) && ctx.Err() == nil {
			got := r.Peek(t0, belongs)
			if len(got) != seen {
				seen, changed = len(got), time.Now()
			}
			if time.Since(changed) >= r.spec.QuietFor() && s.delivered(ns, r.spec, due, got) {
				break
			}
			time.Sleep(sinkPoll)
		}
		out = append(out, r.Take(t0, belongs)...)
		if ctx.Err() != nil {
			return nil, stopped(ctx, ctx.Err())
		}
	}
	slices.SortStableFunc(out, func(a, b model.Delivery) int { return cmp.Compare(a.Time, b.Time) })
	return out, nil
}

// delivered reports whether every action due has its events accepted by
// sink spec.
func (s *Session) delivered(ns model.Namespace, spec model.Sink, due map[model.Action]bool, got []model.Delivery) bool {
	accepted := map[model.Action]int{}
	for _, d := range got {
		if a, ok := s.cfg.Contract.DeliveryOf(ns, spec, d.Body); ok && d.Accepted {
			accepted[a]++
		}
	}
	for a := range due {
		if accepted[a] < spec.EventsPerAction() {
			return false
		}
	}
	return true
}
