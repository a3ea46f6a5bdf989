package procgroup

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrUnsupported marks an error about a feature this operating system
// lacks: replicas need process groups and POSIX signals, which only Linux
// and other Unix systems have. Such an error also matches
// errors.ErrUnsupported.
var ErrUnsupported = errors.New("process: not supported on this operating system (Linux and other Unix systems only)")

// unsupportedError says what cannot be done on which OS, and what to do.
type unsupportedError struct {
	what string // "starting the service"
	goos string
}

// unsupported is the error for what on the OS this program runs on.
func unsupported(what string) error { return &unsupportedError{what: what, goos: runtime.GOOS} }

func (e *unsupportedError) Error() string {
	return fmt.Sprintf("process: %s is not supported on %s (Linux and other Unix systems only): "+
		"start the service yourself and remove process: from the contract, or run idemstress on Linux", e.what, e.goos)
}

func (e *unsupportedError) Unwrap() []error { return []error{ErrUnsupported, errors.ErrUnsupported} }
