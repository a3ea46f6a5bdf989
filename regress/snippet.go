package regress

import (
	"fmt"
	"strings"
)

// Snippet is a Go test that replays case c from the file at casePath under
// the contract file at configPath (paths as the test will see them, relative
// to its package directory), ready to paste into a _test.go file that
// imports testing, stress and regress (the comment above it says which).
func Snippet(c Case, configPath, casePath string) string {
	name := strings.NewReplacer("-", "_").Replace(c.Name)
	return fmt.Sprintf(`// import "github.com/idemstress/idemstress/regress"
// import "github.com/idemstress/idemstress/stress"

// %s %s, found with seed %d: %s
func TestRegression_%s(t *testing.T) {
	cfg, err := stress.Load(%q)
	if err != nil {
		t.Fatal(err)
	}
	regress.Replay(t, cfg, %q)
}
`, c.Check.ID, c.Check.Name, c.Seed, oneLine(c.PlanText), name, configPath, casePath)
}

// oneLine keeps a comment on one line whatever a plan's keys hold.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
