package client_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/internal/testbed/loopback"
)

// No test may leave a goroutine behind: not the client's keep-alive
// connections, not a handler still waiting for a call that timed out.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	serve   = loopback.Serve
	posts   = loopback.Posts
	readAll = loopback.ReadAll
)
