//go:build unix

package procgroup

import (
	"errors"
	"syscall"
)

// Signal is a signal sent to a whole process group.
type Signal = syscall.Signal

const (
	SigTerm = syscall.SIGTERM
	SigKill = syscall.SIGKILL
	SigStop = syscall.SIGSTOP
	SigCont = syscall.SIGCONT
)

// SysProcAttr starts a child as the leader of a process group of its own, so
// that a signal to the group reaches everything the child starts, and a
// terminal's SIGINT to our group does not stop it behind the back of the
// code that owns it. On Linux the child is also SIGKILLed should the caller
// die without ending it; other systems have no such signal. A non-nil cred
// runs the child as that user.
func SysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	setDeathSignal(a)
	return a
}

// CheckSupported tells process.Start whether this OS can run replicas: every Unix
// system has process groups and the signals used here.
func CheckSupported() error { return nil }

// Attr is SysProcAttr for a child run as the caller's user.
func Attr() *syscall.SysProcAttr { return SysProcAttr(nil) }

// Send sends sig to every process of group pgid.
func Send(pgid int, sig Signal) error { return syscall.Kill(-pgid, sig) }

// Running reports whether a process of group pgid runs. Zombies do not
// count: they hold no port and no file, and orphans may stay zombies for
// good where PID 1 is not an init that reaps them (containers).
func Running(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	members, ok := groupMembers(pgid)
	return !ok || len(members) > 0
}
