package procgroup

import (
	"maps"
	"net"
	"syscall"
	"testing"
)

// sock_diag names the same listening sockets as /proc/net/tcp{,6}: the
// one this test listens on, and none on a port it closed; WhoListens
// finds the test's own process holding it.
func TestListeningInodesAsProcSays(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	got, ok := listeningInodes(port)
	if !ok {
		t.Skip("netlink sock_diag is not available here: WhoListens reads /proc")
	}
	want := procListeners(port)
	if len(got) != 1 || !maps.Equal(got, want) {
		t.Errorf("sock_diag: %v; /proc/net/tcp: %v; want the one listener, the same", got, want)
	}
	if w := WhoListens(syscall.Getpgrp(), port); w != ListenerOurs {
		t.Errorf("WhoListens of this process's port: %v, want ListenerOurs (%v)", w, ListenerOurs)
	}
	l.Close()
	if got, _ := listeningInodes(port); len(got) != 0 {
		t.Errorf("sock_diag after the close: %v, want none", got)
	}
}
