package regress

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/redact"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/stress"
)

// attempts is how many times a replay runs a case's plan at most before it
// calls the case passed: a racy failure does not repeat every time.
const attempts = 3

// racyAttempts is AttemptsFor a plan with a burst released under a
// db-stall: the stall has every request read before any writes, so a
// check-then-insert race goes the failing way nearly every time, and a
// few more tries cover what it does not force.
const racyAttempts = 12

// timedAttempts is AttemptsFor a plan with a burst and no db-stall: which
// call wins is left to timing, and a race the search met may go the
// failing way once in hundreds of releases. memory-keys' burst of two
// identical calls (its window is between the first call's commit and its
// remembering the key) failed 11 times in 3000 on an idle loopback, and
// about once in 650 on a loaded machine: 5000 tries miss it there about
// once in 2000 replays. Each try of a small burst takes milliseconds, and
// a failure ends the replay at once.
const timedAttempts = 5000

// timedBudget bounds the time one case's timed attempts may take (a
// correct service runs them all) unless the Config's Duration says
// otherwise: past it, once racyAttempts have run, the replay stops and
// warns how many it tried.
const timedBudget = time.Minute

// AttemptsFor is how many times Run tries plan, replayed under hunt h,
// before it calls it passed.
func AttemptsFor(p model.Plan, h Hunt) int {
	switch {
	case !slices.ContainsFunc(p.Steps, func(s model.Step) bool { return s.Kind == model.StepBurst }):
		return attempts
	case h.DBStall != "":
		return racyAttempts
	}
	return timedAttempts
}

// Outcome is one case replayed.
type Outcome struct {
	Case Case
	// Verdict is Fail when the case's check fired again, Pass when it did
	// not, Inconclusive when the replay could not tell (Err says why).
	Verdict checks.Verdict
	// Trial is the last attempt: its history and every violation.
	Trial stress.Trial
	// Attempts counts the plan's runs: up to Max, fewer when the check
	// fired (or a race's replay ran out of timedBudget: Warnings says so).
	Attempts int
	// Max is how many runs the replay allowed: AttemptsFor the plan under
	// the hunt it replayed with.
	Max int
	// Warnings say what makes the verdict less certain: a contract whose
	// digest differs from the case's.
	Warnings []string
	Err      error
}

// Checks lists the checks the last attempt fired, primary first.
func (o Outcome) Checks() []checks.ID { return checks.IDsOf(o.Trial.Violations) }

// Run replays each case against the target cfg describes, under the case's
// Hunt (replicas, sync, db-stall) where it has one, else cfg's: through one
// stress.Session for each distinct hunt. cfg.Duration, when set, bounds
// the time a race left to timing is tried (default a minute; at least
// racyAttempts tries run whatever it says). The error says the target could
// not be opened at all; a case that could not be run is Inconclusive with
// its own Err.
func Run(ctx context.Context, cfg stress.Config, cases []Case) ([]Outcome, error) {
	sessions := map[Hunt]*stress.Session{}
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
	}()
	digest := cfg.Digest()
	prefix := fmt.Sprintf("rp%08x", randomUint32())
	t0 := time.Now()
	budget := timedBudget
	if cfg.Duration > 0 {
		budget = cfg.Duration
	}
	outs := make([]Outcome, len(cases))
	for i, c := range cases {
		o := Outcome{Case: c, Verdict: checks.Pass}
		if c.ContractDigest != digest {
			o.Warnings = append(o.Warnings, fmt.Sprintf("the contract's digest %s is not the case's %s: the case was found under another contract and may not mean what it did", digest, c.ContractDigest))
		}
		ccfg, hunt := cfg, huntOf(cfg.Spec)
		if c.Hunt != nil {
			if w := c.Hunt.apply(&ccfg.Spec); w != "" {
				o.Warnings = append(o.Warnings, w)
			}
			hunt = huntOf(ccfg.Spec)
		}
		session := sessions[hunt]
		if session == nil {
			var err error
			if session, err = stress.Open(ctx, ccfg); err != nil {
				return nil, err
			}
			sessions[hunt] = session
		}
		o.Max = AttemptsFor(c.Plan, hunt)
		o.replay(ctx, session, c, fmt.Sprintf("%s-%d", prefix, i+1), t0, budget)
		outs[i] = o
		if ctx.Err() != nil {
			return outs[:i+1], nil
		}
	}
	return outs, nil
}

// replay runs c's plan up to o.Max times, each in a namespace of its own
// under prefix, until its check fires (Fail); a pass in which a planned
// fault never fired proved nothing (Inconclusive). A race left to timing
// stops early once budget is spent, with a warning.
func (o *Outcome) replay(ctx context.Context, session *stress.Session, c Case, prefix string, t0 time.Time, budget time.Duration) {
	unfired := false
	until := time.Now().Add(budget)
	for a := range o.Max {
		if a >= racyAttempts && time.Now().After(until) {
			o.Warnings = append(o.Warnings, fmt.Sprintf("a race left to timing (a burst with no db-stall) was tried %d of %d times in %s: one rarer than that may have been missed; give it a db-stall (--db-stall) or replay it again, for longer (--duration)", a, o.Max, budget))
			break
		}
		ns := model.Namespace(fmt.Sprintf("%s-%d-", prefix, a+1))
		tr, err := session.Try(ctx, ns, c.Plan, t0)
		o.Trial, o.Attempts = tr, a+1
		if err != nil {
			o.Verdict, o.Err = checks.Inconclusive, err
			return
		}
		if slices.ContainsFunc(tr.Violations, func(v checks.Violation) bool { return v.Check == c.Check.ID }) {
			o.Verdict = checks.Fail
			return
		}
		unfired = unfired || !faultkind.AllFired(tr.History.Faults)
	}
	if o.Verdict == checks.Pass && unfired {
		// A planned fault that did not fire proved nothing: never a pass.
		o.Verdict = checks.Inconclusive
		o.Err = fmt.Errorf("a planned fault did not fire in %d attempt(s)", o.Attempts)
	}
}

// Replay replays the case files and directories in paths against the
// target cfg describes, each under the hunt it was found with (see Run),
// one subtest per case named after it: the subtest fails when the case's
// check fires again (a regression), and shows the plan, history and
// violations of that run.
func Replay(t *testing.T, cfg stress.Config, paths ...string) {
	t.Helper()
	cases, err := Load(paths...)
	if err != nil {
		t.Fatalf("idemstress: %v", err)
	}
	ReplayCases(t, cfg, cases)
}

// ReplayCases is Replay of cases already loaded: Load them, change what
// should differ (a case's Hunt, to replay it on other replicas, or nil for
// the contract's settings), then replay them.
func ReplayCases(t *testing.T, cfg stress.Config, cases []Case) {
	t.Helper()
	outs, err := Run(t.Context(), cfg, cases)
	if err != nil {
		t.Fatalf("idemstress: %v", redact.Error(err))
	}
	for _, o := range outs {
		t.Run(o.Case.Name, func(t *testing.T) {
			for _, w := range o.Warnings {
				t.Logf("idemstress: warning: %s", w)
			}
			// A message may quote 200 KB of the service's output: cut as
			// every message idemstress prints is.
			switch o.Verdict {
			case checks.Fail:
				t.Error(model.CutLines(fmt.Sprintf("idemstress: regression %s: %s fired again\n%s", o.Case.Path, o.Case.Check.ID,
					report.Explain(o.Case.Plan, o.Trial.History, o.Trial.Violations))))
			case checks.Inconclusive:
				t.Error(model.CutLines(fmt.Sprintf("idemstress: replaying %s: inconclusive: %v", o.Case.Path, redact.Error(o.Err))))
			}
		})
	}
}

func randomUint32() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint32(b[:])
}
