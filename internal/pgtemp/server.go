package pgtemp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/idemstress/idemstress/internal/logtail"
)

const (
	// stopTimeout is how long a fast shutdown may take before SIGKILL.
	stopTimeout = 10 * time.Second
	// pipeDrainDelay bounds how long Wait waits for server output after the
	// process exits; backends that outlive a killed postmaster hold the pipe.
	pipeDrainDelay = 5 * time.Second
)

// server is a running postmaster.
type server struct {
	cmd *exec.Cmd
	// exited is done once Wait has returned; a context rather than a
	// channel so that connection attempts can be abandoned when it is.
	exited  context.Context
	waitErr error // Wait's result; read only after exited is done
	// logMark is where this postmaster's output starts in the cluster's
	// log, so that a failed start quotes it without an earlier attempt's.
	logMark int64
}

// startServer starts postgres in the background. Its lifetime is governed
// by stop, not by any context: a Start context must not outlive Start.
func startServer(path string, args []string, cred *osUser, dir string, log *logtail.Tail) (*server, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.WaitDelay = pipeDrainDelay
	cmd.SysProcAttr = procAttr(cred)
	mark := log.Mark()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgtemp: start %s: %w", path, err)
	}
	exited, markExited := context.WithCancel(context.Background())
	s := &server{cmd: cmd, exited: exited, logMark: mark}
	go func() {
		s.waitErr = cmd.Wait()
		markExited()
	}()
	return s, nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// stop asks for a fast shutdown, kills the postmaster if that takes longer
// than timeout, and returns once the process and its output are gone.
//
// SIGINT, not SIGTERM: for PostgreSQL SIGTERM is a smart shutdown, which
// waits for every client to disconnect, so one leaked connection would cost
// the whole timeout.
func (s *server) stop(timeout time.Duration) error {
	if s.exited.Err() != nil {
		return s.exitedEarly()
	}
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("pgtemp: signal postgres (pid %d) to shut down: %w", s.pid(), err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-s.exited.Done():
		return nil
	case <-timer.C:
	}
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("pgtemp: kill postgres (pid %d) after %s: %w", s.pid(), timeout, err)
	}
	<-s.exited.Done()
	return fmt.Errorf("pgtemp: postgres (pid %d) did not finish a fast shutdown within %s and was killed", s.pid(), timeout)
}

// exitedEarly describes a postmaster that exited before it was asked to.
func (s *server) exitedEarly() error {
	if s.waitErr == nil {
		return nil
	}
	return fmt.Errorf("pgtemp: postgres (pid %d) had already exited: %w", s.pid(), s.waitErr)
}
