package engine

import (
	"flag"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

// tb lets rapid run outside `go test`: rapid wants a testing.TB-like value to
// report to; this one records instead of printing and never calls
// runtime.Goexit, so FailNow just marks the run failed.
type tb struct {
	mu     sync.Mutex
	failed bool
	logs   []string
}

func (t *tb) Helper()      {}
func (t *tb) Name() string { return "idemstress" }
func (t *tb) Logf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.logs = append(t.logs, fmt.Sprintf(format, args...))
}
func (t *tb) Log(args ...any)                   { t.Logf("%s", fmt.Sprint(args...)) }
func (t *tb) Skipf(format string, args ...any)  { t.Logf(format, args...) }
func (t *tb) Skip(args ...any)                  { t.Log(args...) }
func (t *tb) SkipNow()                          {}
func (t *tb) Errorf(format string, args ...any) { t.Logf(format, args...); t.Fail() }
func (t *tb) Error(args ...any)                 { t.Log(args...); t.Fail() }
func (t *tb) Fatalf(format string, args ...any) { t.Errorf(format, args...) }
func (t *tb) Fatal(args ...any)                 { t.Error(args...) }
func (t *tb) FailNow()                          { t.Fail() }
func (t *tb) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
}
func (t *tb) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// rapidMu serialises rapid's shrinks (shrinkRapid): rapid reads its
// settings from process-wide flags.
var rapidMu sync.Mutex

// flagsMu guards rapid's flags themselves: setRapidFlags writes them
// (holding rapidMu too) while another run may draw a plan, and rapid's
// Example reads the seed flag before it takes the seed it is given.
var flagsMu sync.RWMutex

var initTesting sync.Once

// setRapidFlags configures rapid through its flags, the only way it offers.
// Outside `go test`, testing.Init and a parse of the (empty) command line
// must come first: rapid calls testing.Short.
func setRapidFlags(checks int, seed uint64, shrink time.Duration) error {
	initTesting.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
	})
	if testing.Short() {
		checks *= 5 // rapid runs a fifth of its checks under -short
	}
	flagsMu.Lock()
	defer flagsMu.Unlock()
	for name, v := range map[string]string{
		"rapid.checks": strconv.Itoa(checks),
		"rapid.seed":   strconv.FormatUint(seed, 10),
		// rapid gets half of the budget (runner.rapidBy also cuts its
		// runs); idemstress's own pass what is left (runner.shrinkBy).
		"rapid.shrinktime": (shrink / 2).String(),
		"rapid.nofailfile": "true",
	} {
		if err := flag.Set(name, v); err != nil {
			return fmt.Errorf("setting rapid's flag %s: %w", name, err)
		}
	}
	return nil
}
