//go:build !unix

package process

import "syscall"

// Without process groups and POSIX signals nothing here can work: Start
// fails with ErrUnsupported, so no Service exists for the rest to act on;
// they fail the same way should one be reached all the same.

// groupSignal names a signal this OS lacks, for error messages.
type groupSignal string

func (s groupSignal) String() string { return string(s) }

const (
	sigTerm groupSignal = "SIGTERM"
	sigKill groupSignal = "SIGKILL"
	sigStop groupSignal = "SIGSTOP"
	sigCont groupSignal = "SIGCONT"
)

func checkSupported() error { return unsupported("starting the service") }

func groupAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pgid int, sig groupSignal) error {
	return unsupported("sending " + sig.String() + " to a process group")
}

func groupRunning(pgid int) bool { return false }

func whoListens(pgid, port int) listener { return listenerUnknown }

func groupStopped(pgid int) bool { return true }
