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

// flagsMu guards rapid's seed flag, the one setting rapid reads that
// differs between its uses here: shrinkRapid holds it from setting the
// seed until its rapid.Check has read it, and drawPlan while rapid's
// Example reads it. The settings shared by every use are set once
// (rapidSettings), before any rapid.Check, and never written again: a
// Check reads its shrink time only when its shrinking starts.
var flagsMu sync.RWMutex

var rapidSettings sync.Once
var rapidSettingsErr error

// rapidShrinkTime is rapid's own bound on a shrink: longer than any
// budget, which each shrink enforces itself (runner.property cuts every
// run past its shrinking's rapidBy, so rapid's candidates pass at once
// and its shrinking ends).
const rapidShrinkTime = 24 * time.Hour

// setRapidSeed configures rapid through its flags, the only way it offers:
// the shared settings the first time, then the seed its next rapid.Check
// starts from. The caller holds flagsMu. Outside `go test`, testing.Init
// and a parse of the (empty) command line come first: rapid calls
// testing.Short.
func setRapidSeed(seed uint64) error {
	rapidSettings.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
		checks := 1
		if testing.Short() {
			checks = 5 // rapid runs a fifth of its checks under -short
		}
		rapidSettingsErr = setFlags(map[string]string{
			"rapid.checks":     strconv.Itoa(checks),
			"rapid.shrinktime": rapidShrinkTime.String(),
			"rapid.nofailfile": "true",
		})
	})
	if rapidSettingsErr != nil {
		return rapidSettingsErr
	}
	return setFlags(map[string]string{"rapid.seed": strconv.FormatUint(seed, 10)})
}

func setFlags(values map[string]string) error {
	for name, v := range values {
		if err := flag.Set(name, v); err != nil {
			return fmt.Errorf("setting rapid's flag %s: %w", name, err)
		}
	}
	return nil
}
