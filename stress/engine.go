package stress

import (
	"context"
	"fmt"

	"github.com/idemstress/idemstress/internal/engine"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// Run tries cfg.Plans random plans against the target, cfg.Workers at once,
// and reports every distinct bug they show: each failing plan that counts
// for a new bug is shrunk, with rapid and then with idemstress's own pass,
// to a minimal one, and the search goes on. It returns an error only for a
// configuration that cannot run at all; a failure of the target or the
// database during the run gives an inconclusive result with Err set. When
// ctx ends, the result holds what was found until then (Interrupted).
// A contract error that only the run's answers show (a generated input
// refused, no ID where the contract says) is returned as the error; when
// the run had found bugs before it, the result is returned beside it, not
// nil, holding them, with Contract set to the same error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	session, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer session.Close()
	return engine.Run(ctx, settingsOf(session.cfg), engineSession{session})
}

// settingsOf is what the engine needs of cfg, as Open left it: the one
// place a Config's fields are handed to the engine.
func settingsOf(cfg Config) engine.Settings {
	return engine.Settings{Spec: cfg.Spec, World: cfg.World, Plans: cfg.Plans, Seed: cfg.Seed, ShrinkTime: cfg.ShrinkTime,
		Workers: cfg.Workers, MaxBugs: cfg.MaxBugs, Duration: cfg.Duration, Namespace: cfg.Namespace, Progress: cfg.Progress, Log: cfg.Log}
}

// DeriveSeed is the i-th seed derived from seed, a splitmix64 step, so
// that neighbouring seeds (7 and 8) do not share derived seeds shifted by
// one: a run's plan i is drawn from DeriveSeed(run seed, i), and a sharded
// job's shard i runs with DeriveSeed(job seed, i).
func DeriveSeed(seed uint64, i int) uint64 { return engine.DeriveSeed(seed, i) }

// engineSession is a Session as the engine uses it (engine.Session): its
// methods stay off Session's API.
type engineSession struct{ *Session }

func (s engineSession) TryWith(ctx context.Context, c model.Contract, ns model.Namespace, call model.Call) (model.Op, error) {
	return s.tryWith(ctx, c, ns, call)
}

func (s engineSession) CodesOf(f model.Fault) []string { return s.codesOf(f) }

func (s engineSession) DBProxy() bool { return s.db != nil }

func (s engineSession) TracesOf(ctx context.Context, ns model.Namespace, call model.Call, n int) ([][]pgproxy.Step, [][]string, []model.Op, error) {
	return s.tracesOf(ctx, ns, call, n)
}

func (s engineSession) Baseline(ctx context.Context, prefix model.Namespace) (model.Baseline, error) {
	return s.observer.Baseline(ctx, prefix)
}

func (s engineSession) Notes() []string { return s.observer.Notes() }
