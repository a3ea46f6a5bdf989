package checks

import (
	"fmt"
	"maps"
	"slices"

	"github.com/idemstress/idemstress/internal/model"
)

// Outside lists the tables whose rows outside the run changed between two
// baselines (IDEM-009): a run wrote where no plan of it may.
func Outside(before, after model.Baseline) []Violation {
	var vs []Violation
	for _, table := range slices.Sorted(maps.Keys(before)) {
		if after[table] != before[table] {
			vs = append(vs, violation(StrayWrite, model.Action{}, "rows outside the run's namespace changed in "+table,
				fmt.Sprintf("%s before the run: %s; after: %s", table, before[table], after[table])))
		}
	}
	return vs
}
