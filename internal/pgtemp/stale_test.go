//go:build unix

package pgtemp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// sharedTemp is a temp dir the postgres user can enter, as /tmp is (a
// cluster started as root runs as postgres).
func sharedTemp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgtemp-stale-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// deadPID is the process id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// leftover makes a cluster directory in tmp with the given files
// (relative path → process id written in it).
func leftover(t *testing.T, tmp, name string, pids map[string]int) string {
	t.Helper()
	dir := filepath.Join(tmp, "idemstress-pg-"+name)
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	for file, pid := range pids {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.Itoa(pid)+"\n/tmp/x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Only directories nobody uses are removed: their owner and postmaster
// are gone, or nothing was recorded and nothing touched them for long.
func TestRemoveStale(t *testing.T) {
	tmp := sharedTemp(t)
	dead, live := deadPID(t), os.Getpid()
	gone := []string{
		leftover(t, tmp, "killed", map[string]int{"owner.pid": dead, "data/postmaster.pid": dead}),
		leftover(t, tmp, "old-version-killed", map[string]int{"data/postmaster.pid": dead}),
		leftover(t, tmp, "owner-killed-in-initdb", map[string]int{"owner.pid": dead}),
	}
	old := leftover(t, tmp, "nothing-recorded-long-ago", nil)
	long := time.Now().Add(-time.Hour)
	for _, p := range []string{filepath.Join(old, "data"), old} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	gone = append(gone, old)
	kept := []string{
		leftover(t, tmp, "owner-alive", map[string]int{"owner.pid": live}),
		leftover(t, tmp, "postmaster-alive", map[string]int{"owner.pid": dead, "data/postmaster.pid": live}),
		leftover(t, tmp, "being-made", nil),
	}
	other := filepath.Join(tmp, "not-a-cluster")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, other)

	removed := pgtemp.RemoveStale(tmp)
	slices.Sort(removed)
	slices.Sort(gone)
	if !slices.Equal(removed, gone) {
		t.Errorf("removed %v, want %v", removed, gone)
	}
	for _, dir := range gone {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", dir, err)
		}
	}
	for _, dir := range kept {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}
}

// Start removes what a SIGKILLed run left (its postmaster died with it,
// its postmaster.pid stayed), and a live cluster is never taken for that.
func TestStartRemovesWhatAKilledRunLeft(t *testing.T) {
	tmp := sharedTemp(t)
	t.Setenv("TMPDIR", tmp)
	killed := leftover(t, tmp, "killed", map[string]int{"data/postmaster.pid": deadPID(t)})
	c, err := pgtemp.Start(t.Context(), pgtemp.Options{})
	pgtest.Require(t, err)
	defer c.Close()
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("the killed run's %s is still there after Start (%v)", killed, err)
	}
	if removed := pgtemp.RemoveStale(tmp); len(removed) > 0 {
		t.Errorf("removed the live cluster's directory: %v", removed)
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), "data", "postmaster.pid")); err != nil {
		t.Errorf("the live cluster after RemoveStale: %v", err)
	}
}
