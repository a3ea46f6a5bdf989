//go:build unix && !linux

package procgroup

import "syscall"

// Without /proc, what Linux reads there cannot be told, and the code that
// asks copes: a port's listener goes unchecked, Pause returns as soon as
// SIGSTOP is sent, and a group counts as running until kill(-pgid, 0) says
// it is gone.

// setDeathSignal does nothing: only Linux has Pdeathsig, so a replica or
// server outlives an idemstress killed without stopping it.
func setDeathSignal(*syscall.SysProcAttr) {}

func WhoListens(pgid, port int) Listener { return ListenerUnknown }

func Stopped(pgid int) bool { return true }

func groupMembers(pgid int) (pids []int, ok bool) { return nil, false }
