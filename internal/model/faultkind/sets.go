package faultkind

import (
	"slices"

	"github.com/idemstress/idemstress/internal/model"
)

// ProxyFaults are the faults the fault proxy in front of a replica does.
var ProxyFaults = faultsThat(func(k FaultKind) bool { return k.Needs == NeedsProxy })

// ProcessFaults are the faults that need the service's processes, so only
// a service that idemstress starts can have them.
var ProcessFaults = faultsThat(func(k FaultKind) bool { return k.Needs == NeedsService })

// Crashes reports whether fault f SIGKILLs the call's replica, at one of
// the points a crash may land: the replica stays down until a restart.
func Crashes(f model.Fault) bool { return kind(f).Crashes }

// DBFaults are the faults done to the service's database sessions: they
// need an effect table to wait on, not the service's processes.
var DBFaults = faultsThat(func(k FaultKind) bool { return k.Needs == NeedsDatabase })

// DependencyFaults are the faults done to a dependency of the service
// that idemstress starts beside it (process.dependencies), as steps of
// their own.
var DependencyFaults = faultsThat(func(k FaultKind) bool { return k.Needs == NeedsDependency && k.Scope == AsStep })

// PlannedFaults are the faults a contract may enable (`faults:`).
var PlannedFaults = faultsThat(func(FaultKind) bool { return true })

// FaultCount is how many faults of one kind were planned and fired.
type FaultCount struct {
	Planned int `json:"planned"`
	Fired   int `json:"fired"`
}

// FaultsFired counts the faults that fired, of every kind.
func FaultsFired(counts map[model.Fault]FaultCount) int {
	n := 0
	for _, c := range counts {
		n += c.Fired
	}
	return n
}

// Tally adds events to counts, by kind. A replica's exit (FaultExit) is
// no fault planned, so it is not counted.
func Tally(counts map[model.Fault]FaultCount, events []model.FaultEvent) {
	for _, e := range events {
		if e.Kind == model.FaultExit {
			continue
		}
		c := counts[e.Kind]
		c.Planned++
		if e.Fired {
			c.Fired++
		}
		counts[e.Kind] = c
	}
}

// AllFired reports whether every fault of events fired.
func AllFired(events []model.FaultEvent) bool {
	return !slices.ContainsFunc(events, func(e model.FaultEvent) bool { return !e.Fired })
}
