package engine

import (
	"context"
	"io"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
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
	// CodesOf are the failures fault f deals where the session stands;
	// none for a fault that names no failure.
	CodesOf(f model.Fault) []string
	// DBProxy says a database proxy stands between the service and its
	// database, where the points of a call's work are learned.
	DBProxy() bool
	// TracesOf sends call n times, one after the other and unfaulted, in
	// namespace ns, and returns the points each one's database work
	// passed at the proxy, the names of those its commands passed at the
	// dependencies', and their answers.
	TracesOf(ctx context.Context, ns model.Namespace, call model.Call, n int) ([][]pgproxy.Step, [][]string, []model.Op, error)
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
	Coverage model.Coverage
	// Notes say something about the run that is no violation (an event
	// that came after delivery_within).
	Notes []string
}
