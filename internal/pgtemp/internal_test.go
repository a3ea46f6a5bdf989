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
		if probes != portRetries+1 {
			t.Errorf("probes = %d, want %d", probes, portRetries+1)
		}
	})
}

func TestLogTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "empty", want: "\t(no output)"},
		{name: "lines split across writes", writes: []string{"a\nb", "c\n", "d"}, want: "\ta\n\tbc\n\td"},
		{name: "keeps the last lines", writes: []string{strings.Repeat("x\n", tailLines) + "y\nz\n"},
			want: "\t" + strings.Repeat("x\n\t", tailLines-2) + "y\n\tz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var forwarded strings.Builder
			tail := newLogTail(&forwarded)
			for _, w := range tc.writes {
				if n, err := tail.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := tail.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			all := strings.Join(tc.writes, "")
			if got, want := forwarded.String(), all[:strings.LastIndex(all, "\n")+1]; got != want {
				t.Errorf("forwarded %q, want %q", got, want)
			}
		})
	}
}

func TestNewerVersionDirFirst(t *testing.T) {
	dirs := []string{"/usr/lib/postgresql/9.6/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/10/bin", "/usr/lib/postgresql/16/bin"}
	want := []string{"/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/10/bin", "/usr/lib/postgresql/9.6/bin"}
	for i := range dirs {
		for j := range dirs {
			if got, wantLess := newerVersionDir(want[i], want[j]), i < j; got != wantLess {
				t.Errorf("newerVersionDir(%s, %s) = %v, want %v", want[i], want[j], got, wantLess)
			}
		}
	}
}
