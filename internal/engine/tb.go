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

// rapidMu is a shrink's turn at rapid's flags, which rapid reads when a
// Check starts (its seed, how many checks) and when its shrinking starts
// (how long): shrinkRapid holds it from setting the seed (borrowRapid)
// until its rapid.Check has read it, and while giving the flags back
// (giveBackRapid). The settings every shrink shares are set when the
// first of the shrinks under way starts and set back when the last ends,
// never between: a program's own rapid tests see their own settings once
// idemstress's runs are done.
var rapidMu sync.Mutex

// flagsMu guards the flags' memory: borrowRapid and giveBackRapid write
// them under it, and drawPlan reads the seed under it while rapid's
// Example takes it (searches draw plans while another run shrinks).
var flagsMu sync.RWMutex

var initTesting sync.Once

// rapidShrinks counts the shrinks under way, and rapidSaved holds rapid's
// flags as they were before the first of them; both guarded by rapidMu.
var (
	rapidShrinks int
	rapidSaved   map[string]string
)

// rapidShrinkTime is rapid's own bound on a shrink: longer than any
// budget, which each shrink enforces itself: past its shrinking's
// rapidBy, runner.property passes every candidate before drawing it, and
// rapid's shrinking ends with the round under way.
const rapidShrinkTime = 24 * time.Hour

// borrowRapid configures rapid through its flags, the only way it offers,
// for one shrink: the shared settings if no other shrink is under way,
// then the seed its next rapid.Check starts from. The caller holds
// rapidMu, and calls giveBackRapid (holding it again) once the shrink
// ends. Outside `go test`, testing.Init and a parse of the (empty) command
// line come first: rapid calls testing.Short.
func borrowRapid(seed uint64) error {
	initTesting.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
	})
	values := map[string]string{"rapid.seed": strconv.FormatUint(seed, 10)}
	var saved map[string]string
	if rapidShrinks == 0 {
		checks := 1
		if testing.Short() {
			checks = 5 // rapid runs a fifth of its checks under -short
		}
		values["rapid.checks"] = strconv.Itoa(checks)
		values["rapid.shrinktime"] = rapidShrinkTime.String()
		values["rapid.nofailfile"] = "true"
		saved = map[string]string{}
		for name := range values {
			if f := flag.Lookup(name); f != nil {
				saved[name] = f.Value.String()
			}
		}
		rapidSaved = saved
	}
	if err := setFlags(values); err != nil {
		if saved != nil {
			_ = setFlags(saved)
		}
		return err
	}
	rapidShrinks++
	return nil
}

// giveBackRapid ends a shrink that borrowRapid began: the last one under
// way sets rapid's flags back to what they were. The caller holds rapidMu.
func giveBackRapid() {
	if rapidShrinks--; rapidShrinks == 0 {
		_ = setFlags(rapidSaved)
	}
}

func setFlags(values map[string]string) error {
	flagsMu.Lock()
	defer flagsMu.Unlock()
	for name, v := range values {
		if err := flag.Set(name, v); err != nil {
			return fmt.Errorf("setting rapid's flag %s: %w", name, err)
		}
	}
	return nil
}
