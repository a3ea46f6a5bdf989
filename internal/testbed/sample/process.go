package sample

import (
	"fmt"
	"os/exec"
	"slices"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/stress"
)

// processFaults are the faults each mode is tested with when idemstress
// runs it as processes: the bugs that show only across a restart or a
// crash get those, the correct mode every fault kind. Modes not listed
// run in-process, without planned faults.
var processFaults = map[string][]model.Fault{
	Correct: slices.Concat(everyFault, ticketFaults, []model.Fault{model.FaultCrashKeyRecord, model.FaultPauseKeyRecord, model.FaultCrashAt}),
	// key-first completes its key record in the transaction that claimed
	// it, which holds the key table from its first statement: no write to
	// the record is left after the effects' for crash-key-record to stop.
	"key-first":             slices.Concat(everyFault, ticketFaults, []model.Fault{model.FaultCrashAt}),
	"memory-keys":           {model.FaultRestart},
	"non-atomic":            {model.FaultCrash},
	"stuck-in-flight":       {model.FaultCrash},
	"stores-errors":         {model.FaultDBError},
	"exits-on-db-error":     {model.FaultDBError},
	"complete-after-commit": {model.FaultCrashKeyRecord},
	// Two transactions, wrong only when the process dies between them: a
	// crash at every point of the call's database work finds it.
	"key-tx-first":     {model.FaultCrashAt},
	"effects-tx-first": {model.FaultCrashAt},
	// A claim whose lease expires under a slow original: its retry
	// takes over and executes again.
	"short-lease": {model.FaultSlowOriginal},
	// Keys in a Redis without persistence: a restart of Redis (or its
	// crash) forgets them. The durable Redis keeps them, and its record,
	// written before the PostgreSQL commit, outlives a crash at a point
	// between the two. The reservation that PostgreSQL decides must pass
	// everything, over a Redis that forgets or fails. The design that
	// skips a record Redis failed to store commits without it, and its
	// retry creates again.
	"keys-in-redis":           {model.FaultDepRestart, model.FaultDepCrash},
	"keys-in-redis-durable":   {model.FaultCrashAt},
	"keys-in-redis-reserved":  slices.Concat(everyFault, []model.Fault{model.FaultDepRestart, model.FaultDepCrash, model.FaultCrashAt, model.FaultDepError}),
	"keys-in-redis-fail-open": {model.FaultDepError},
}

// redisModes are the modes that keep their keys in a Redis idemstress
// starts beside the service, and whether that Redis is durable.
var redisModes = map[string]bool{"keys-in-redis": false, "keys-in-redis-durable": true, "keys-in-redis-reserved": false, "keys-in-redis-fail-open": true}

// NeedsRedis reports whether a mode keeps its keys in a Redis, which
// idemstress starts as a dependency of the service (ProcessConfig): it
// runs only as processes, and only where redis-server is installed.
func NeedsRedis(mode string) bool { _, ok := redisModes[mode]; return ok }

// RedisServer is the redis-server the Redis modes start, "" when none is
// on PATH.
func RedisServer() string {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// Redis is the dependency the Redis modes keep their keys in: bin on a
// port of its own, without persistence, or with an append-only file
// fsynced on every write (durable).
func Redis(bin string, durable bool) process.DependencySpec {
	argv := []string{bin, "--port", "{port}", "--bind", "127.0.0.1", "--dir", "{data_dir}", "--save", ""}
	if durable {
		argv = append(argv, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		argv = append(argv, "--appendonly", "no")
	}
	return process.DependencySpec{Name: "redis", Command: argv, URL: "redis://{addr}/0",
		Ready: process.ReadyCheck{Send: "PING\r\n", Expect: "+PONG"}, StopTimeout: 5 * time.Second}
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
	model.FaultRestart, model.FaultCrash, model.FaultPause, model.FaultDBError}

// ticketFaults are the faults the ticket service's correct designs are
// tested with beyond everyFault: an original held past the lease its
// contract declares (see ProcessConfig), and a crash after the commit.
var ticketFaults = []model.Fault{model.FaultSlowOriginal, model.FaultCrashAfterCommit}

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
	if durable, ok := redisModes[mode]; ok {
		bin := RedisServer()
		if bin == "" {
			return stress.Config{}, fmt.Errorf("sample: mode %s keeps its keys in Redis, and there is no redis-server on PATH: apt-get install -y redis-server", mode)
		}
		cfg.Process.Dependencies = []process.DependencySpec{Redis(bin, durable)}
		cfg.Process.Command = append(cfg.Process.Command, "-redis-url", "{dep.redis.url}")
	}
	cfg.DatabaseURL = dbURL
	cfg.HTTP.Timeout = callTimeout(mode, cfg.HTTP.Timeout)
	cfg.Faults = slices.Clone(processFaults[mode])
	if slices.Contains(cfg.Faults, model.FaultPause) {
		cfg.Process.Replicas = 2 // the retry goes to the replica not paused
	}
	cfg.Contract.Recovery = recovery
	if slices.Contains(cfg.Faults, model.FaultSlowOriginal) {
		// short-lease's lease. The correct designs hold a key for as long
		// as its original runs, longer than any lease: declaring this one
		// has the fault send the retry once it has run out.
		cfg.Contract.Lease = ticketsvc.ShortLease
	}
	// Through the fault proxy and across restarts, a burst's requests take
	// longer to reach the stalled table on a loaded machine than
	// in-process: a key-first duplicate queues behind the first request's
	// key row only once that request is under way.
	cfg.StallWait = stallWait
	return cfg, nil
}
