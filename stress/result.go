package stress

import (
	"github.com/idemstress/idemstress/internal/engine"
	"github.com/idemstress/idemstress/internal/findings"
)

// The types of what a run found are declared once, in internal/findings,
// which the search fills in; stress names them so that callers write
// stress.Result as before. Their methods are the ones meant for callers
// (Checks, Row, Rows, Statuses, Report).
type (
	// Failure is one bug a run found: a failing plan, shrunk, with what it
	// did and what it broke.
	Failure = findings.Failure
	// Result is what a run found.
	Result = findings.Result
	// Sighting is a reported bug seen another way: a shrunk failure whose
	// check needs what the bug's minimal plan needs.
	Sighting = findings.Sighting

	// Trial is one plan's execution in a namespace of its own, and its
	// verdict (Session.Try), declared where the engine judges it.
	Trial = engine.Trial
	// Progress is how far a run has got, for a caller that shows it while
	// the run goes on (Config.Progress). The library itself prints nothing.
	Progress = engine.Progress
)
