package sample

import (
	"slices"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/process"
	"github.com/idemstress/idemstress/stress"
)

// processFaults are the faults each mode is tested with when idemstress
// runs it as processes: the bugs that show only across a restart or a
// crash get those, the correct mode every fault kind. Modes not listed
// run in-process, without planned faults.
var processFaults = map[string][]model.Fault{
	Correct:           everyFault,
	"key-first":       everyFault,
	"memory-keys":     {model.FaultRestart},
	"non-atomic":      {model.FaultCrash},
	"stuck-in-flight": {model.FaultCrash},
}

// recovery is the contract's recovery time for the modes run as
// processes: the sample releases a key as soon as a crashed call's
// transaction is gone, and a stuck key is polled this long.
const recovery = time.Second

// stallWait bounds how long the db-stall nemesis waits for a burst's
// requests to arrive, in the runs as processes.
const stallWait = 3 * time.Second

// everyFault is what a correct mode is tested with: every fault kind but
// delay, which costs a whole call timeout per delayed call.
var everyFault = []model.Fault{model.FaultLoseReply, model.FaultDropRequest, model.FaultDoubleDelivery,
	model.FaultRestart, model.FaultCrash, model.FaultPause}

// Processes reports whether the demo runs a mode as processes of the
// ticketsvc binary with planned faults (see ProcessConfig).
func Processes(mode string) bool { _, ok := processFaults[mode]; return ok || IsPay(mode) }

// FaultsOnly reports whether a mode of ticketsvc is correct but for
// faults: only a run as processes with planned faults can catch it.
func FaultsOnly(mode string) bool { _, ok := processFaults[mode]; return ok && !Passes(mode) }

// ProcessConfig is a run of the sample service as processes in one mode
// and layout, started by idemstress over the database at dbURL (it
// migrates its schema itself), with the mode's faults planned. serve is
// the command that serves it, before its flags: the ticketsvc binary
// (BuildBinary), or an idemstress binary's "sample-service".
func ProcessConfig(serve []string, dbURL, mode string, layout ticketsvc.Layout) (stress.Config, error) {
	cfg, err := Contract(layout)
	if err != nil {
		return stress.Config{}, err
	}
	bug := mode
	if mode == Correct {
		bug = ""
	}
	if layout == "" {
		layout = ticketsvc.LayoutKeys
	}
	cfg.Process = &process.Spec{Command: append(slices.Clone(serve), "-listen", "127.0.0.1:{port}", "-database-url", "{database_url}",
		"-bug", bug, "-schema", string(layout))}
	cfg.DatabaseURL = dbURL
	cfg.HTTP.Timeout = CallTimeout(mode, cfg.HTTP.Timeout)
	cfg.Faults = slices.Clone(processFaults[mode])
	if slices.Contains(cfg.Faults, model.FaultPause) {
		cfg.Process.Replicas = 2 // the retry goes to the replica not paused
	}
	cfg.Contract.Recovery = recovery
	// Through the fault proxy and across restarts, a burst's requests take
	// longer to reach the stalled table on a loaded machine than
	// in-process: a key-first duplicate queues behind the first request's
	// key row only once that request is under way.
	cfg.StallWait = stallWait
	return cfg, nil
}
