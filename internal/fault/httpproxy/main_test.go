package httpproxy_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/internal/testbed/loopback"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	serve   = loopback.Serve
	readAll = loopback.ReadAll
)
