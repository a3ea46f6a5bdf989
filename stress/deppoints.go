package stress

import (
	"slices"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// The points of a first call's commands at the service's dependencies
// (its Redis, through the RESP proxy in front of it) are learned from the
// same unfaulted call as its database work's (points.go), and join the
// points crash-at may name: "before redis SET 1", "after redis SET 1".

// learnedDeps collects the traces an unfaulted call left at each
// dependency's proxy.
type learnedDeps map[string][]respproxy.Step

// names are the points of the traces, by dependency name, then in the
// order the call passed them.
func (l learnedDeps) names() []string {
	deps := make([]string, 0, len(l))
	for d := range l {
		deps = append(deps, d)
	}
	slices.Sort(deps)
	var names []string
	for _, d := range deps {
		names = append(names, fault.DepPointNames(d, l[d])...)
	}
	return names
}
