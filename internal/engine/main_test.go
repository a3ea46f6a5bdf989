package engine

import (
	"testing"

	"go.uber.org/goleak"
)

// No test may leave a goroutine behind: every plan the search's window
// starts is waited for, even when the duration cuts it (stress's tests
// held this through pgtest.Main before the runner moved here).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
