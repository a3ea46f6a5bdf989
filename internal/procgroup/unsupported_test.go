package procgroup

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestUnsupportedError checks, on every OS, the error that Start and the
// other features return where processes cannot be supervised.
func TestUnsupportedError(t *testing.T) {
	err := unsupported("starting the service")
	for _, target := range []error{ErrUnsupported, errors.ErrUnsupported} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(%v, %v) = false, want true", err, target)
		}
	}
	want := "process: starting the service is not supported on " + runtime.GOOS + " (Linux and other Unix systems only): "
	if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "remove process: from the contract") {
		t.Errorf("error %q, want it to start with %q and say what to do instead", msg, want)
	}
}
