package process

import (
	"maps"
	"net"
	"slices"
	"syscall"
	"testing"
)

// sock_diag and /proc/net/tcp name the same listening sockets: a listener
// of this process on IPv4 and one on IPv6, and none on a port nothing
// listens on; and whoListens finds this process's group holding them.
func TestListeningSocketsAgreeWithProc(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		addr := map[string]string{"tcp4": "127.0.0.1:0", "tcp6": "[::1]:0"}[network]
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Logf("%s: %v (no such loopback here)", network, err)
			continue
		}
		port := l.Addr().(*net.TCPAddr).Port
		diag, ok := listeningSockets(port)
		if !ok {
			t.Fatalf("%s: sock_diag could not tell who listens on %d", network, port)
		}
		proc, _ := procListeners(port)
		if len(diag) != 1 || !maps.Equal(diag, proc) {
			t.Errorf("%s port %d: sock_diag %v, /proc/net %v: want the same one socket", network, port, slices.Collect(maps.Keys(diag)), slices.Collect(maps.Keys(proc)))
		}
		if got := whoListens(syscall.Getpgrp(), port); got != listenerOurs {
			t.Errorf("%s port %d: whoListens = %d, want listenerOurs", network, port, got)
		}
		l.Close()
		if diag, ok := listeningSockets(port); !ok || len(diag) != 0 {
			t.Errorf("%s port %d closed: sock_diag %v (ok %v), want none", network, port, diag, ok)
		}
		if got := whoListens(syscall.Getpgrp(), port); got != listenerNone {
			t.Errorf("%s port %d closed: whoListens = %d, want listenerNone", network, port, got)
		}
	}
}
