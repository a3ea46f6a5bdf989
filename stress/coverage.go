package stress

import (
	"slices"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/model"
)

// startCoverage is a run's coverage before its first plan: every call
// transition and every fault the run plans at zero, so that the report
// names what never happened.
func startCoverage(cfg Config) model.Coverage {
	faults := slices.Clone(cfg.Faults)
	if cfg.DBStall != "" {
		faults = append(faults, model.FaultDBStall)
	}
	return model.NewCoverage(faults)
}

// Statuses says of every check whether the run failed it, passed it, or
// never exercised it (none of the transitions it needs happened), or
// proved nothing of it (an inconclusive run).
func (res *Result) Statuses() map[checks.ID]checks.Status {
	var vs []checks.Violation
	for _, f := range res.Failures {
		vs = append(vs, f.Violations...)
	}
	vs = append(vs, res.Outside...)
	// A check a failure attributed to a reported bug fired failed too: it
	// is never "passed".
	return checks.Statuses(res.Coverage, append(checks.Fired(vs), res.AttributedChecks...), res.Verdict == checks.Inconclusive)
}
