package pgtemp

import "github.com/idemstress/idemstress/internal/procgroup"

// unsupportedOS is Start's error on a system where pgtemp cannot run
// PostgreSQL as a child (no process groups or POSIX signals). It matches
// ErrNoBinaries, so that callers offer an existing server as they do when
// the binaries are missing, and procgroup.ErrUnsupported.
type unsupportedOS struct{ goos string }

func (e unsupportedOS) Error() string {
	return "pgtemp: running a throwaway PostgreSQL is not supported on " + e.goos +
		" (Linux and other Unix systems only): pass --database-url or set DATABASE_URL to use an existing server"
}

func (e unsupportedOS) Unwrap() []error { return []error{ErrNoBinaries, procgroup.ErrUnsupported} }
