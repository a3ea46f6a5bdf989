package client

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
)

// Errors that say the target cannot be talked to at all are marked
// unreachable (the run stops, exit 3); errors of one call on a reachable
// service are not (the call has no answer).
func TestClassify(t *testing.T) {
	dial := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: errno}}
	}
	for _, tc := range []struct {
		name        string
		err         error
		unreachable bool
	}{
		{"connection refused", dial(syscall.ECONNREFUSED), true},
		{"no route to host", dial(syscall.EHOSTUNREACH), true},
		{"network unreachable", dial(syscall.ENETUNREACH), true},
		{"no such host", &net.DNSError{Err: "no such host", Name: "svc.invalid", IsNotFound: true}, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}, false},
		{"timeout", context.DeadlineExceeded, false},
	} {
		if got := errors.Is(classify(tc.err), ErrUnreachable); got != tc.unreachable {
			t.Errorf("%s: unreachable = %v, want %v", tc.name, got, tc.unreachable)
		}
	}
}
