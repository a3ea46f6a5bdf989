package regress_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// childMode names the sample mode TestReplayChild replays against; it is
// set only in the child process TestReplayInGoTest starts.
const childMode = "REGRESS_TEST_REPLAY_MODE"

// Replay, the helper the README shows for go test, fails the subtest of a
// case whose check fires again, with the history, and passes the subtest of
// a case whose check stays silent. A failing subtest fails its parent, so
// it runs in a child test process whose output is judged here.
func TestReplayInGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child test process with its own PostgreSQL")
	}
	for _, tc := range []struct {
		mode string
		fail bool
		want []string
	}{
		{"no-payload-check", true, []string{"--- FAIL: TestReplayChild/IDEM-004-", "IDEM-004 fired again", "history:"}},
		{sample.Correct, false, []string{"--- PASS: TestReplayChild/IDEM-004-"}},
	} {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestReplayChild$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), childMode+"="+tc.mode)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tc.fail {
			t.Errorf("%s: child failed = %v (%v), want %v\n%s", tc.mode, failed, err, tc.fail, out)
		}
		for _, want := range tc.want {
			if !strings.Contains(string(out), want) {
				t.Errorf("%s: child output lacks %q\n%s", tc.mode, want, out)
			}
		}
	}
}

func TestReplayChild(t *testing.T) {
	mode, ok := os.LookupEnv(childMode)
	if !ok {
		t.Skip("run by TestReplayInGoTest")
	}
	call := func(v int) model.Step {
		return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Variant: v}}}
	}
	f := &stress.Failure{Plan: model.Plan{Steps: []model.Step{call(0), call(1)}},
		Violations: []checks.Violation{{Check: checks.ChangedAccepted, Message: "IDEM-004 changed payload accepted: x"}}}
	cfg := startSample(t, mode, 1, 1)
	dir := t.TempDir()
	if _, err := regress.Write(dir, regress.FromFailure(cfg, 1, f)); err != nil {
		t.Fatal(err)
	}
	regress.Replay(t, cfg, dir)
}
