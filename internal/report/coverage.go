package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// CoverageLine says how often a run made each transition and which checks
// it therefore never exercised, each named after the last of the
// transitions it needs: "coverage: calls 40, sequential retry 12, …,
// other tenant same key 0 (IDEM-007 not exercised), …, burst 9". A check
// that needs a fault that never fired is named at the end.
func CoverageLine(cov model.Coverage, status map[checks.ID]checks.Status) string {
	shown := cov.Transitions()
	after := map[model.Transition][]checks.ID{}
	var rest []string
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
			rest = append(rest, fmt.Sprintf("%s not exercised (%s)", c.ID, strings.TrimPrefix(c.Unexercised(cov), "not exercised: ")))
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
	if len(rest) > 0 {
		line += "; " + strings.Join(rest, "; ")
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
