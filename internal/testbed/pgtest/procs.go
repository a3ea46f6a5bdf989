package pgtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ProcessesUsing lists the processes whose working directory, command
// line or environment mentions dir: PostgreSQL processes chdir into their
// data directory, a service's command line names its binary, and children
// inherit TMPDIR, so a test that points TMPDIR at dir finds postmasters,
// backends, initdb's bootstrap backend and replicas alike. It reads /proc:
// elsewhere it finds nothing.
func ProcessesUsing(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		proc := filepath.Join("/proc", e.Name())
		cwd, _ := os.Readlink(filepath.Join(proc, "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join(proc, "cmdline"))
		environ, _ := os.ReadFile(filepath.Join(proc, "environ"))
		if strings.HasPrefix(cwd, dir) || bytes.Contains(cmdline, []byte(dir)) || bytes.Contains(environ, []byte(dir)) {
			found = append(found, fmt.Sprintf("pid %d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return found
}

// WaitNoProcessesUsing polls ProcessesUsing until it finds none or bound
// has passed, and returns what it found last: a killed process may take a
// moment between being reaped and releasing its working directory.
func WaitNoProcessesUsing(dir string, bound time.Duration) []string {
	deadline := time.Now().Add(bound)
	for {
		procs := ProcessesUsing(dir)
		if len(procs) == 0 || time.Now().After(deadline) {
			return procs
		}
		time.Sleep(10 * time.Millisecond)
	}
}
