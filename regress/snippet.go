package regress

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Snippet is a Go test that replays case c from the file at casePath under
// the contract file at configPath, ready to paste into a _test.go file that
// imports testing, stress and regress (the comment above it says which).
// The paths are written as given, and go test opens them from the test's
// package directory: give them relative to it, or absolute (the snippet
// then says to copy the files into testdata/ before committing it).
func Snippet(c Case, configPath, casePath string) string {
	name := strings.NewReplacer("-", "_").Replace(c.Name)
	note := ""
	if filepath.IsAbs(configPath) || filepath.IsAbs(casePath) {
		note = "// The paths are absolute, for this machine: to commit this test, copy both\n" +
			"// files into testdata/ beside it and name them \"testdata/...\".\n"
	}
	return fmt.Sprintf(`// import "github.com/idemstress/idemstress/regress"
// import "github.com/idemstress/idemstress/stress"
// %s %s, found with seed %d: %s
%sfunc TestRegression_%s(t *testing.T) {
	cfg, err := stress.Load(%q)
	if err != nil {
		t.Fatal(err)
	}
	regress.Replay(t, cfg, %q)
}
`, c.Check.ID, c.Check.Name, c.LastSeen.Seed, oneLine(c.PlanText), note, name, configPath, casePath)
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
