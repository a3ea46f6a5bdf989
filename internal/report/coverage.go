package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model/coverage"
)

// CoverageLine says how often a run made each transition and which checks
// it therefore never exercised, each named after the last of the
// transitions it needs: "coverage: calls 40, sequential retry 12, …,
// other tenant same key 0 (IDEM-007 not exercised), …, burst 9". A check
// that needs a fault that never fired is named at the end.
func CoverageLine(cov coverage.Coverage, status map[checks.ID]checks.Status) string {
	shown := cov.Transitions()
	after := map[coverage.Transition][]checks.ID{}
	// rest are the checks none of whose transitions is shown, by why, in
	// the order the reasons first come (the checks of sinks share one
	// under a contract without sinks).
	var reasons []string
	rest := map[string][]checks.ID{}
	for _, c := range checks.Catalogue() {
		if status[c.ID] != checks.NotExercised || len(c.Needs) == 0 {
			continue
		}
		last := -1
		for _, t := range c.Needs {
			last = max(last, slices.Index(shown, t))
			if !slices.Contains(shown, t) {
				last = len(shown)
				break
			}
		}
		if last == len(shown) {
			why := strings.TrimPrefix(c.Unexercised(cov), "not exercised: ")
			if rest[why] == nil {
				reasons = append(reasons, why)
			}
			rest[why] = append(rest[why], c.ID)
			continue
		}
		after[shown[last]] = append(after[shown[last]], c.ID)
	}
	parts := make([]string, len(shown))
	for i, t := range shown {
		parts[i] = fmt.Sprintf("%s %d", t.Label(), cov[t])
		if ids := after[t]; len(ids) > 0 {
			parts[i] += fmt.Sprintf(" (%s not exercised)", IDs(ids))
		}
	}
	line := "coverage: " + strings.Join(parts, ", ")
	for _, why := range reasons {
		ids := slices.Sorted(slices.Values(rest[why]))
		line += fmt.Sprintf("; %s not exercised (%s)", IDs(ids), why)
	}
	return line
}

// coverageLines says, one line per run (cases of one run share their
// coverage), what CoverageLine says: "correct: coverage: calls 40, …".
func coverageLines(cases []Row) string {
	var b strings.Builder
	last := ""
	for _, c := range cases {
		if c.Coverage == nil {
			continue
		}
		line := c.Target + ": " + CoverageLine(c.Coverage, c.CheckStatus) + "\n"
		if line != last {
			b.WriteString(line)
		}
		last = line
	}
	return b.String()
}
