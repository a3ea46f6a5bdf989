package stress_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// After a run whose plans restart, crash and pause the service, over a
// throwaway PostgreSQL of its own, no process of the service or of
// PostgreSQL is left: neither when the run ends, nor when it is cancelled
// in the middle (as on SIGINT).
func TestNoProcessLeftAfterFaults(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("builds the sample service, starts processes and a cluster, reads /proc")
	}
	built := stresstest.SampleBinary(t)
	for _, tc := range []struct {
		name   string
		cancel time.Duration // 0: run to the end
	}{
		{name: "run to the end"},
		{name: "cancelled", cancel: 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Everything the run starts lives under dir: the binary, the
			// cluster's data directory (TMPDIR), and so their processes.
			dir, err := os.MkdirTemp("", "idemstress-leftover-*")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			if err := os.Chmod(dir, 0o755); err != nil { // the cluster may run as postgres
				t.Fatal(err)
			}
			t.Setenv("TMPDIR", dir)
			bin := filepath.Join(dir, filepath.Base(built))
			if err := linkOrCopy(built, bin); err != nil {
				t.Fatal(err)
			}
			cfg, err := sample.ProcessConfig([]string{bin}, "", sample.Correct, ticketsvc.LayoutKeys)
			if err != nil {
				t.Fatal(err)
			}
			// The first plans are dealt a fault kind each (crash and
			// pause among them): 20 plans hold every kind.
			cfg.Plans, cfg.Seed, cfg.DBStall = 20, 5, "tickets"
			ctx := t.Context()
			if tc.cancel > 0 {
				// Cancelled a while after the replicas started: in the
				// middle of the plans, restarts and crashes.
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				cfg.Log = onLine("started", func() { time.AfterFunc(tc.cancel, cancel) })
			}
			res, err := stress.Run(ctx, cfg)
			if err != nil {
				t.Logf("run: %v", err)
			} else {
				t.Logf("verdict %s after %d plans, faults %v", res.Verdict, res.Plans, res.Faults)
			}
			if tc.cancel == 0 && (err != nil || res.Verdict != "pass" || res.Faults[model.FaultCrash].Fired == 0 || res.Faults[model.FaultPause].Fired == 0) {
				t.Errorf("the run did not pass with crashes and pauses: %v %+v", err, res)
				for _, f := range res.Failures {
					t.Errorf("%s, minimal plan %s: %v", f.Check, f.Plan, f.Violations)
				}
			}
			if left := pgtest.WaitNoProcessesUsing(dir, 10*time.Second); len(left) > 0 {
				t.Errorf("left running:\n%s", strings.Join(left, "\n"))
			}
		})
	}
}

// linkOrCopy puts the binary at from also at to: a hard link, or a copy
// when the two are on different file systems.
func linkOrCopy(from, to string) error {
	if os.Link(from, to) == nil {
		return nil
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// onLine is a log writer that calls f once, at the first write holding word.
func onLine(word string, f func()) io.Writer {
	var once sync.Once
	return writerFunc(func(p []byte) (int, error) {
		if bytes.Contains(p, []byte(word)) {
			once.Do(f)
		}
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }
