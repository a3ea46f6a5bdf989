//go:build !unix

package procgroup

import "syscall"

// Without process groups and POSIX signals nothing here can work:
// process.Start fails with ErrUnsupported, so no Service exists for the
// rest to act on; they fail the same way should one be reached all the same.

// Signal names a signal this OS lacks, for error messages.
type Signal string

func (s Signal) String() string { return string(s) }

const (
	SigTerm Signal = "SIGTERM"
	SigKill Signal = "SIGKILL"
	SigStop Signal = "SIGSTOP"
	SigCont Signal = "SIGCONT"
)

func CheckSupported() error { return unsupported("starting the service") }

func Attr() *syscall.SysProcAttr { return nil }

func Send(pgid int, sig Signal) error {
	return unsupported("sending " + sig.String() + " to a process group")
}

func Running(pgid int) bool { return false }

func WhoListens(pgid, port int) Listener { return ListenerUnknown }

func Stopped(pgid int) bool { return true }
