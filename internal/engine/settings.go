package engine

import (
	"context"
	"io"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/points"
)

// Settings are what a run needs to know: what the contract says and how
// hard to look, as stress.Config says them once stress.Open has filled in
// its defaults (stress derives them in one function, settingsOf). The
// fields mean what Config's of the same name do.
type Settings struct {
	contract.Spec
	World      gen.World
	Plans      int
	Seed       uint64
	ShrinkTime time.Duration
	Workers    int
	MaxBugs    int
	Duration   time.Duration
	Namespace  string
	Progress   func(Progress)
	Log        io.Writer
}

// Session is what a run does through the target, the service's processes
// and the database: stress.Session behind a small adapter. The search and
// the shrinker reach it only through Try (the trier seam); the rest is
// what the run learns before the search and checks after it.
type Session interface {
	// Try executes one plan in namespace ns, on the clock of a run begun
	// at t0, reads the namespace's rows and judges both. The error says
	// the run cannot go on; a violation is not an error.
	Try(ctx context.Context, ns model.Namespace, plan model.Plan, t0 time.Time) (Trial, error)
	// TryWith sends one call alone, its identifiers made under c, and
	// returns its answer (usable.Probe.TryWith).
	TryWith(ctx context.Context, c model.Contract, ns model.Namespace, call model.Call) (model.Op, error)
	// CodesOf, DBProxy and TracesOf are where the run learns the
	// points and failures its faults are dealt (internal/points).
	points.Source
	// Baseline fingerprints the effect tables' rows outside prefix.
	Baseline(ctx context.Context, prefix model.Namespace) (model.Baseline, error)
	// Notes are what the observer has to say about the run.
	Notes() []string
	// Where says what the calls go to, for reports.
	Where() string
}

// Trial is one plan's execution in a namespace of its own, and its verdict.
type Trial struct {
	NS model.Namespace
	// History is what the plan's execution did: its calls, and its faults
	// as they happened (what fired, which calls each touched).
	History    model.History
	Violations []checks.Violation
	// Coverage counts the transitions the execution made (model.Exercised).
	Coverage coverage.Coverage
	// Notes say something about the run that is no violation (an event
	// that came after delivery_within).
	Notes []string
}
