package stresstest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/stress"
)

// triedNote is the note a run ends with about the points it tried
// (stress's pointsTried): "crash-at: tried 9 of 10 points of a first
// call's work; 6 of 6 of a retry's (not tried: …)".
var triedNote = regexp.MustCompile(`^crash-at: tried (\d+) of (\d+) points of a first call's work(?:; (\d+) of (\d+) of a retry's)?`)

// AssertEveryPointTried fails t unless the run learned points of a first
// call's work and of its retry's, and its note says it tried every one
// of both (tried N of N), as the coverage counts them. It returns the
// note.
func AssertEveryPointTried(t *testing.T, res *stress.Result) string {
	t.Helper()
	for _, n := range res.Notes {
		m := triedNote.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		if m[1] != m[2] || m[3] == "" || m[3] != m[4] || strings.Contains(n, "not tried") {
			t.Errorf("note %q: want every point of a first call's work and of a retry's tried", n)
		}
		for tr, c := range res.Coverage {
			if strings.HasPrefix(string(tr), string(model.FaultCrashAt)+" ") && c == 0 {
				t.Errorf("coverage: %s never tried", tr)
			}
		}
		return n
	}
	t.Errorf("no note says which points the run tried: %q", res.Notes)
	return ""
}
