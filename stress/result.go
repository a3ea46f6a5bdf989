package stress

import "github.com/idemstress/idemstress/internal/findings"

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
)
