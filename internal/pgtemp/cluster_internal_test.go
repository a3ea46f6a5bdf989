//go:build unix

package pgtemp

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// TestStartRetriesTakenPort has the port probe hand out a port another
// listener holds, as happens when someone grabs it between probe and bind.
func TestStartRetriesTakenPort(t *testing.T) {
	// pgtest.Require's rule; pgtest imports this package, so no test of
	// its own can use it.
	if _, err := FindBinDir(); err != nil && testing.Short() && errors.Is(err, ErrNoBinaries) {
		t.Skip("needs PostgreSQL, which is not installed (-short run):", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port

	t.Run("recovers", func(t *testing.T) {
		probes := 0
		c, err := start(context.Background(), Options{}, func() (int, error) {
			probes++
			if probes == 1 {
				return taken, nil
			}
			return freePort()
		})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if probes != 2 || c.Port() == taken {
			t.Errorf("probes = %d, port = %d (taken %d); want 2 probes and another port", probes, c.Port(), taken)
		}
	})

	t.Run("gives up", func(t *testing.T) {
		probes := 0
		c, err := start(context.Background(), Options{}, func() (int, error) {
			probes++
			return taken, nil
		})
		if err == nil {
			c.Close()
			t.Fatal("Start succeeded on a taken port")
		}
		if !errors.Is(err, errPortTaken) || !strings.Contains(err.Error(), "Address already in use") {
			t.Errorf("err = %v, want errPortTaken with the server's bind error", err)
		}
		// Each try logs its own start; the error is about the last one.
		if n := strings.Count(err.Error(), "starting PostgreSQL"); n != 1 {
			t.Errorf("error quotes the log of %d tries, want only the last one's: %v", n, err)
		}
		if probes != portRetries+1 {
			t.Errorf("probes = %d, want %d", probes, portRetries+1)
		}
	})
}
