//go:build unix

package pgtemp

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"github.com/idemstress/idemstress/internal/procgroup"
)

// osUser is the OS user initdb and postgres run as; nil is the current user.
type osUser = syscall.Credential

// checkOS says whether PostgreSQL can run here as pgtemp runs it: every
// Unix system has the process groups and signals it needs.
func checkOS() error { return nil }

// serverUser is the OS user initdb and postgres run as: nil means the
// current user; as root it is "postgres", because PostgreSQL refuses to run
// as root.
func serverUser() (*osUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtemp: running as root, which PostgreSQL refuses, and the OS user %q to run it as is unavailable (%v): "+
			"install the `postgresql` package (it creates the user) or run as a non-root user", "postgres", err)
	}
	uid, errU := strconv.ParseUint(u.Uid, 10, 32)
	gid, errG := strconv.ParseUint(u.Gid, 10, 32)
	if errU != nil || errG != nil {
		return nil, fmt.Errorf("pgtemp: OS user %q has a non-numeric uid %q or gid %q", "postgres", u.Uid, u.Gid)
	}
	// Groups left empty: the child keeps no supplementary group of ours.
	return &osUser{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// chownTo hands path to the server user, when there is one.
func chownTo(path string, cred *osUser) error {
	if cred == nil {
		return nil
	}
	if err := os.Chown(path, int(cred.Uid), int(cred.Gid)); err != nil {
		return fmt.Errorf("pgtemp: give %s to the postgres OS user: %w", path, err)
	}
	return nil
}

// procAttr runs a child as cred in a process group of its own, which
// procgroup.SysProcAttr explains.
func procAttr(cred *osUser) *syscall.SysProcAttr { return procgroup.SysProcAttr(cred) }

// killGroup SIGKILLs the process group pid leads: initdb runs postgres in
// bootstrap mode as a child of its own, which must not outlive it.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
