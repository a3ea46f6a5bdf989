package points

import (
	"slices"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
)

// StartCoverage is a run's coverage before its first plan: every call
// transition and every fault the run plans (faults, and db-stall when
// dbStall names its table) at zero, so that the report names what never
// happened. The points and failures dealt join it at zero as they are
// learned (Dealer).
func StartCoverage(faults []model.Fault, dbStall string, w gen.World) coverage.Coverage {
	faults = slices.Clone(faults)
	if dbStall != "" {
		faults = append(faults, model.FaultDBStall)
	}
	cov := coverage.NewCoverage(faults)
	if w.Unique {
		cov[coverage.TakenValue] = 0 // plans may send another action's unique values
	}
	return cov
}
