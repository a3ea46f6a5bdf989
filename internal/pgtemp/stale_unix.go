//go:build unix

package pgtemp

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ownerFile names, in a cluster's directory, the file holding the process
// id of the idemstress that made it: while that process lives, the
// directory is in use even before its postmaster writes postmaster.pid.
const ownerFile = "owner.pid"

// staleGrace is how long a directory with neither an owner nor a
// postmaster must have been left untouched before it counts as left
// behind: one just made by MkdirTemp has no owner file yet, and an older
// idemstress writes none while initdb runs (minutes, on a loaded machine).
const staleGrace = 10 * time.Minute

// markOwner records this process as the owner of dir.
func markOwner(dir string) error {
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
}

// removeStale removes the directories of throwaway clusters in tmp (""
// for os.TempDir) that a killed idemstress left behind (43 MB each), and
// only those: a directory whose owner or postmaster still lives, or that
// is younger than a minute with neither recorded, is left alone. It
// returns the directories removed. Start calls it before it makes its own.
func removeStale(tmp string) []string {
	if tmp == "" {
		tmp = os.TempDir()
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "idemstress-pg-*"))
	var removed []string
	for _, dir := range dirs {
		if !stale(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// stale reports whether dir is a cluster directory nobody uses.
func stale(dir string) bool {
	info, err := os.Lstat(dir)
	if err != nil || !info.IsDir() {
		return false
	}
	owner, ownerKnown := pidIn(filepath.Join(dir, ownerFile))
	postmaster, pmKnown := pidIn(filepath.Join(dir, "data", "postmaster.pid"))
	switch {
	case ownerKnown && alive(owner), pmKnown && alive(postmaster):
		return false
	case ownerKnown || pmKnown:
		return true // whoever it names is gone
	}
	// Neither recorded: being made right now, or left by an idemstress
	// that kept no owner file (killed during initdb, or older).
	touched := info.ModTime()
	if data, err := os.Stat(filepath.Join(dir, "data")); err == nil && data.ModTime().After(touched) {
		touched = data.ModTime() // initdb at work
	}
	return time.Since(touched) > staleGrace
}

// pidIn reads the process id on the first line of a file.
func pidIn(path string) (int, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	return pid, err == nil && pid > 0
}

// alive reports whether a process with this id exists (it may belong to
// another user: a postmaster runs as postgres).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
