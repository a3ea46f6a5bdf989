package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGINT, SIGTERM and SIGHUP (a closed terminal, a CI runner's stop) each
// end a merge whose read waits on a pipe that never delivers: it exits 3
// with a line, as interrupted, not killed by the signal nor hung.
func TestMergeInterruptedWhileReading(t *testing.T) {
	dir, bin := t.TempDir(), idemstressBinary(t)
	fifo := filepath.Join(dir, "report.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A writer that never writes: the read waits on it.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "merge", fifo)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // in the read
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10s after %s", sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != exitInconclusive {
				t.Errorf("after %s: exit %d (%s), want %d; stderr %q", sig, code, cmd.ProcessState, exitInconclusive, stderr.String())
			}
		})
	}
}
