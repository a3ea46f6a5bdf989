package procgroup

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// On Linux a replica dies with idemstress (Pdeathsig), and /proc tells who
// listens on a port and when a paused process group has stopped.

// setDeathSignal has the kernel SIGKILL the child should the OS thread that
// started it exit: should idemstress die without stopping it, the replica or
// server goes too. The Go runtime retires only threads locked with
// runtime.LockOSThread, which nothing here does, so it fires only then.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// WhoListens finds the sockets listening on port (asked of sock_diag, or
// read from /proc/net/tcp{,6} where netlink cannot tell) and tells whether
// a process of group pgid holds one of them.
func WhoListens(pgid, port int) Listener {
	sockets, read := listeningInodes(port)
	if !read {
		sockets = procListeners(port)
		read = sockets != nil
	}
	if !read {
		return ListenerUnknown
	}
	return heldBy(pgid, sockets)
}

// procListeners reads the sockets listening on port from
// /proc/net/tcp{,6}; nil when neither could be read.
func procListeners(port int) map[string]bool {
	var sockets map[string]bool
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		if sockets == nil {
			sockets = map[string]bool{}
		}
		// "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode"
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // TCP_LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(f[1], ":")
			if n, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(n) == port {
				sockets["socket:["+f[9]+"]"] = true
			}
		}
	}
	return sockets
}

// heldBy tells whether a process of group pgid holds one of sockets, the
// ones listening on a port.
func heldBy(pgid int, sockets map[string]bool) Listener {
	if len(sockets) == 0 {
		return ListenerNone
	}
	// The group's leader, the command started, listens itself most
	// often: look at it before reading every process's stat in /proc to
	// find the rest of its group (hundreds on a busy machine).
	if holds(pgid, sockets) {
		return ListenerOurs
	}
	members, ok := groupMembers(pgid)
	if !ok {
		return ListenerUnknown
	}
	for _, pid := range members {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		fds, err := os.ReadDir(dir)
		if err != nil {
			return ListenerUnknown
		}
		for _, fd := range fds {
			if link, err := os.Readlink(dir + fd.Name()); err == nil && sockets[link] {
				return ListenerOurs
			}
		}
	}
	return ListenerForeign
}

// holds reports whether process pid has one of sockets open.
func holds(pid int, sockets map[string]bool) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if link, err := os.Readlink(dir + fd.Name()); err == nil && sockets[link] {
			return true
		}
	}
	return false
}

// Stopped reports whether every thread of every live process of group
// pgid is stopped; true too when /proc cannot tell.
func Stopped(pgid int) bool {
	members, ok := groupMembers(pgid)
	if !ok {
		return true
	}
	for _, pid := range members {
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			continue // exited meanwhile
		}
		for _, task := range tasks {
			state, _, ok := procStat("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/stat")
			if ok && state != 'T' && state != 'Z' && state != 'X' {
				return false
			}
		}
	}
	return true
}

// groupMembers are the processes of group pgid that are not zombies; ok is
// false when /proc cannot be read.
func groupMembers(pgid int) (pids []int, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pgrp, ok := procStat("/proc/" + e.Name() + "/stat"); ok && pgrp == pgid && state != 'Z' && state != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// procStat reads a process's (or thread's) state and process group from
// its /proc stat file.
func procStat(path string) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || len(f[0]) == 0 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pgrp, true
}
