package engine

import (
	"slices"

	"github.com/idemstress/idemstress/internal/model"
)

// startCoverage is a run's coverage before its first plan: every call
// transition and every fault the run plans at zero, so that the report
// names what never happened.
func startCoverage(cfg Settings) model.Coverage {
	faults := slices.Clone(cfg.Faults)
	if cfg.DBStall != "" {
		faults = append(faults, model.FaultDBStall)
	}
	cov := model.NewCoverage(faults)
	if cfg.World.Unique {
		cov[model.TakenValue] = 0 // plans may send another action's unique values
	}
	return cov
}
