package pgtemp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"time"
)

const (
	// stopTimeout is how long a fast shutdown may take before SIGKILL.
	stopTimeout = 10 * time.Second
	// pipeDrainDelay bounds how long Wait waits for server output after the
	// process exits; backends that outlive a killed postmaster hold the pipe.
	pipeDrainDelay = 5 * time.Second
)

// serverUser is the OS user initdb and postgres run as: nil means the
// current user; as root it is "postgres", because PostgreSQL refuses to run
// as root.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtemp: running as root, which PostgreSQL refuses, and the OS user %q to run it as is unavailable (%v): "+
			"install the `postgresql` package (it creates the user) or run as a non-root user", "postgres", err)
	}
	uid, errU := strconv.ParseUint(u.Uid, 10, 32)
	gid, errG := strconv.ParseUint(u.Gid, 10, 32)
	if errU != nil || errG != nil {
		return nil, fmt.Errorf("pgtemp: OS user %q has a non-numeric uid %q or gid %q", "postgres", u.Uid, u.Gid)
	}
	// Groups left empty: the child keeps no supplementary group of ours.
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// chownTo hands path to the server user, when there is one.
func chownTo(path string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	if err := os.Chown(path, int(cred.Uid), int(cred.Gid)); err != nil {
		return fmt.Errorf("pgtemp: give %s to the postgres OS user: %w", path, err)
	}
	return nil
}

// sysProcAttr makes a child its own process group leader, so that a
// terminal's SIGINT to our group does not stop it behind the back of the
// code that owns it, and kills it if our thread dies without cleaning up.
//
// Pdeathsig fires when the OS thread that started the child exits, not the
// process; the Go runtime only retires threads locked with
// runtime.LockOSThread, which nothing here does.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setpgid:    true,
		Pdeathsig:  syscall.SIGKILL,
		Credential: cred,
	}
}

// server is a running postmaster.
type server struct {
	cmd *exec.Cmd
	// exited is done once Wait has returned; a context rather than a
	// channel so that connection attempts can be abandoned when it is.
	exited  context.Context
	waitErr error // Wait's result; read only after exited is done
}

// startServer starts postgres in the background. Its lifetime is governed
// by stop, not by any context: a Start context must not outlive Start.
func startServer(path string, args []string, cred *syscall.Credential, dir string, log *logTail) (*server, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.WaitDelay = pipeDrainDelay
	cmd.SysProcAttr = sysProcAttr(cred)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgtemp: start %s: %w", path, err)
	}
	exited, markExited := context.WithCancel(context.Background())
	s := &server{cmd: cmd, exited: exited}
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
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
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
