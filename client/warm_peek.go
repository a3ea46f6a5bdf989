//go:build linux || darwin

package client

import (
	"errors"
	"net"
	"syscall"
)

// open reports whether the server has sent nothing on an idle connection,
// its end included: a peek that would block is what an open one gives.
// (A read with a past deadline would not do: Go reports the deadline
// without asking the kernel.)
func open(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	err = raw.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = n <= 0 && (errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK))
		return true // done, whatever the answer: never wait here
	})
	return err == nil && alive
}
