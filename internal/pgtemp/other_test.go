//go:build !unix

package pgtemp_test

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/procgroup"
)

// TestStartUnsupported checks that where pgtemp cannot run PostgreSQL,
// Start says so first: not that binaries are missing (none are here), and
// before it creates anything.
func TestStartUnsupported(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(pgtemp.BinDirEnv, t.TempDir())
	c, err := pgtemp.Start(context.Background(), pgtemp.Options{})
	if c != nil || !errors.Is(err, pgtemp.ErrNoBinaries) || !errors.Is(err, procgroup.ErrUnsupported) {
		t.Fatalf("Start = %v, %v; want nil and an error wrapping ErrNoBinaries and procgroup.ErrUnsupported", c, err)
	}
	if !strings.Contains(err.Error(), "not supported on "+runtime.GOOS) {
		t.Errorf("error %q does not name %s", err, runtime.GOOS)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("Start left %d entries in TMPDIR %s", len(entries), tmp)
	}
}
