package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
)

func TestStressUsage(t *testing.T) {
	for _, args := range [][]string{
		{"stress"},
		{"stress", "--config", "c.yaml"}, // no end
		{"stress", "--config", "c.yaml", "--plans", "5", "--shard", "2/2", "--seed", "3"}, // i ≥ n
		{"stress", "--config", "c.yaml", "--plans", "5", "--shard", "x", "--seed", "3"},
		{"merge"},
		{"merge", "no-such-file.json"},
	} {
		if code, _, stderr := invoke(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, stderr)
		}
	}
}

// Two shards of one job, each with its own plans, against one service with
// two bugs: merged, every bug once, the counts summed, the worst verdict.
func TestStressShardsMerge(t *testing.T) {
	contract, db := serveSample(t, "no-payload-check,global-keys", ticketsvc.LayoutKeys)
	dir := t.TempDir()
	var files []string
	var plans int
	for _, shard := range []string{"0/2", "1/2"} {
		code, stdout, stderr := invoke(t, "stress", "--config", contract, "--database-url", db, "--plans", "40",
			"--shard", shard, "--seed", "77", "--shrink-time", "5s", "--json")
		var rep stressReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("shard %s: exit %d, %v\n%s%s", shard, code, err, stdout, stderr)
		}
		if code != exitViolations || rep.Verdict != checks.Fail || rep.Plans != 40 || len(rep.Shards) != 1 || rep.Shards[0] != shard {
			t.Fatalf("shard %s: exit %d, verdict %s, %d plans, shards %v\n%s", shard, code, rep.Verdict, rep.Plans, rep.Shards, stderr)
		}
		if !strings.Contains(stderr, "search: ") {
			t.Errorf("shard %s: no progress line on stderr:\n%s", shard, stderr)
		}
		plans += rep.Plans
		files = append(files, filepath.Join(dir, "shard"+shard[:1]+".json"))
		if err := os.WriteFile(files[len(files)-1], []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := invoke(t, append([]string{"merge", "--json"}, files...)...)
	var merged stressReport
	if err := json.Unmarshal([]byte(stdout), &merged); err != nil || code != exitViolations {
		t.Fatalf("merge: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	var got []checks.ID
	for _, c := range merged.Cases {
		got = append(got, c.Checks[0])
	}
	if merged.Verdict != checks.Fail || merged.Plans != plans || len(merged.Shards) != 2 ||
		len(got) != 2 || got[0] != checks.TenantLeak || got[1] != checks.ChangedAccepted {
		t.Errorf("merged: verdict %s, %d plans (want %d), shards %v, bugs %v (want IDEM-007, IDEM-004)", merged.Verdict, merged.Plans, plans, merged.Shards, got)
	}
	code, stdout, _ = invoke(t, append([]string{"merge"}, files...)...)
	if code != exitViolations || !strings.Contains(stdout, "fail: 2 bug(s) in 80 plans") {
		t.Errorf("merge as a table: exit %d\n%s", code, stdout)
	}
}

// --duration alone ends a run; the correct service passes.
func TestStressDuration(t *testing.T) {
	t.Parallel()
	contract, db := serveSample(t, sample.Correct, ticketsvc.LayoutKeys)
	code, stdout, stderr := invoke(t, "stress", "--config", contract, "--database-url", db, "--duration", "2s", "--workers", "2")
	if code != exitPass || !strings.HasPrefix(stdout, "pass: 0 bug(s) in ") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// merge's output is deterministic: a golden file pins it. The tenant leak
// found by both shards is kept once, with the smaller plan; the counts are
// summed; the run's time is the longest shard's.
func TestMergeGolden(t *testing.T) {
	code, stdout, stderr := invoke(t, "merge", "testdata/merge/shard0.json", "testdata/merge/shard1.json")
	if code != exitViolations {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	golden(t, "merge/stdout", stdout)
}

// A run whose budget ended before its first plan tested nothing: it is
// inconclusive (exit 3), not a pass.
func TestStressThatTestedNothing(t *testing.T) {
	contract, db := serveSample(t, sample.Correct, ticketsvc.LayoutKeys)
	code, stdout, stderr := invoke(t, "stress", "--config", contract, "--database-url", db, "--duration", "1ns")
	if code != exitInconclusive || !strings.HasPrefix(stdout, "inconclusive: 0 bug(s) in 0 plans") || !strings.Contains(stdout, "no plan was tried") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
