package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// SIGINT in the middle of a long run: idemstress stops starting plans,
// writes the report of what it found until then, stops the service and
// the database it started, and exits 1 when it had found a bug, 3 when not.
// The built binary runs as a real process here, and receives a real signal.
func TestStressInterrupted(t *testing.T) {
	t.Parallel()
	svc := sampleCommand(t)
	bin := idemstressBinary(t)
	for _, tc := range []struct {
		bug, waitFor string
		code         int
	}{
		{"outbox-on-retry", "bugs: IDEM-001", exitViolations},
		{"", " search: ", exitInconclusive},
	} {
		t.Run(cmp.Or(tc.bug, "correct"), func(t *testing.T) {
			command := `[` + svc + `, "-listen", "127.0.0.1:{port}", "-database-url", "{database_url}"`
			if tc.bug != "" {
				command += `, "-bug", "` + tc.bug + `"`
			}
			contract := filepath.Join(t.TempDir(), "contract.yaml")
			yaml := string(ticketsvc.Contract) + "\nprocess:\n  command: " + command + "]\n"
			if err := os.WriteFile(contract, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "stress", "--config", contract, "--duration", "10m", "--progress", "50ms", "--json")
			// Case files go to the working directory's idemstress-cases.
			cmd.Dir = t.TempDir()
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			killed := false
			t.Cleanup(func() {
				if !killed {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
				}
			})
			// Read stderr until the run is under way (and, for the bug,
			// has found it), then keep draining it.
			lines := bufio.NewScanner(stderr)
			var seen strings.Builder
			for lines.Scan() {
				seen.WriteString(lines.Text() + "\n")
				if strings.Contains(lines.Text(), tc.waitFor) && !strings.Contains(lines.Text(), " 0 plans") {
					break
				}
			}
			drained := make(chan struct{})
			go func() {
				defer close(drained)
				for lines.Scan() {
					seen.WriteString(lines.Text() + "\n")
				}
			}()
			children := descendants(t, cmd.Process.Pid)
			if len(children) < 2 {
				t.Fatalf("%d processes under idemstress, want the service and PostgreSQL:\n%s", len(children), seen.String())
			}
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			killed = true
			<-drained
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			}
			var rep stressReport
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("exit %d, no report: %v\n%s\n%s", code, err, stdout.String(), seen.String())
			}
			if code != tc.code || !rep.Interrupted {
				t.Errorf("exit %d (want %d), interrupted %v, verdict %s\n%s", code, tc.code, rep.Interrupted, rep.Verdict, seen.String())
			}
			if tc.code == exitViolations {
				if rep.Verdict != checks.Fail || rep.Cases[0].Checks[0] != checks.DuplicateEffect || rep.Cases[0].MinimalPlan == nil {
					t.Errorf("partial report: %+v", rep.Cases)
				}
				// Each bug found has its case file. The signal may land
				// while a second bug (the duplicate seen under a burst) is
				// being shrunk: it is reported half-shrunk, never dropped,
				// and has its file too.
				bugs := 0
				for _, c := range rep.Cases {
					if c.Checks[0] == checks.DuplicateEffect {
						bugs++
					}
				}
				if files, _ := filepath.Glob(filepath.Join(cmd.Dir, "idemstress-cases", "IDEM-001-*.json")); len(files) != bugs {
					t.Errorf("case files of the bugs found: %v, want %d (one per IDEM-001 case)", files, bugs)
				}
			}
			// Everything idemstress started is gone (waited for, so not
			// even a zombie is left).
			for _, pid := range children {
				if alive(pid) {
					t.Errorf("process %d (%s), started by idemstress, is still there after it exited", pid, comm(pid))
				}
			}
		})
	}
}

// descendants lists every process below pid, from /proc.
func descendants(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := ppid(p); ok {
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// ppid reads a process's parent from /proc/PID/stat.
func ppid(pid int) (int, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	// The command name is in parentheses and may hold spaces.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(fields) < 2 {
		return 0, false
	}
	p, err := strconv.Atoi(fields[1])
	return p, err == nil
}

// alive reports whether pid still exists, waiting a little for processes
// in the middle of exiting.
func alive(pid int) bool {
	for range 50 {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err != nil {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}

func comm(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(b))
}
