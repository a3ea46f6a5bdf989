//go:build !unix

package pgtemp

import (
	"runtime"
	"syscall"
)

// osUser stands in for the OS user to run PostgreSQL as: only Unix systems
// switch to one, and checkOS stops Start before any of the rest is reached.
type osUser struct{}

func checkOS() error { return unsupportedOS{goos: runtime.GOOS} }

func serverUser() (*osUser, error) { return nil, checkOS() }

func chownTo(string, *osUser) error { return checkOS() }

func procAttr(*osUser) *syscall.SysProcAttr { return nil }

func killGroup(int) error { return checkOS() }
