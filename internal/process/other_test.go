//go:build !unix

package process_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/procgroup"
)

// TestStartUnsupported checks that where processes cannot be supervised,
// Start says so before trying anything.
func TestStartUnsupported(t *testing.T) {
	p, err := process.Start(context.Background(), process.Spec{Command: []string{"./ticketsvc"}}, "")
	if p != nil || !errors.Is(err, procgroup.ErrUnsupported) {
		t.Fatalf("Start = %v, %v; want nil and an error wrapping ErrUnsupported", p, err)
	}
	if !strings.Contains(err.Error(), "starting the service is not supported on "+runtime.GOOS) {
		t.Errorf("error %q does not name what failed on %s", err, runtime.GOOS)
	}
}
