package stress

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
)

// What a Go caller set in Config survives defaults: the world's faults are
// planned (and so checked and counted) beside the contract's own, and the
// world's bounds are kept; the contract's faults are added to the world.
func TestDefaultsKeepWhatTheCallerSet(t *testing.T) {
	cfg, err := Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	cfg.World.Faults = []model.Fault{model.FaultLoseReply}
	cfg.World.MaxKeys = 2
	cfg.Faults = []model.Fault{model.FaultDropRequest}
	if err := cfg.defaults(); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cfg.World.Faults, model.FaultLoseReply) || !slices.Contains(cfg.World.Faults, model.FaultDropRequest) {
		t.Errorf("world faults %v: want the caller's lose-reply and the contract's drop-request", cfg.World.Faults)
	}
	if !slices.Contains(cfg.Faults, model.FaultLoseReply) {
		t.Errorf("planned faults %v: want the world's lose-reply among them, so that it is checked and must fire", cfg.Faults)
	}
	if cfg.World.MaxKeys != 2 {
		t.Errorf("world max keys %d: want the caller's 2", cfg.World.MaxKeys)
	}
	// A second pass (a Config reused) changes nothing.
	again := cfg
	if err := again.defaults(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.World.Faults, cfg.World.Faults) || !slices.Equal(again.Faults, cfg.Faults) {
		t.Errorf("defaults twice: faults %v, world %v; want %v, %v", again.Faults, again.World.Faults, cfg.Faults, cfg.World.Faults)
	}
	// A world left zero is the default one, with the contract's faults.
	zero, err := Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	zero.World = gen.World{}
	zero.Faults = []model.Fault{model.FaultDropRequest}
	if err := zero.defaults(); err != nil {
		t.Fatal(err)
	}
	if zero.World.MaxKeys == 0 || !slices.Equal(zero.World.Faults, []model.Fault{model.FaultDropRequest}) {
		t.Errorf("zero world after defaults: %+v", zero.World)
	}
}

// One check refuses an impossible contract, with the same words whether it
// came from a file (Parse names the file first) or was set in Go (Open,
// before anything starts).
func TestInvalidContractRefusedAlike(t *testing.T) {
	valid := string(ticketsvc.Contract)
	for _, tc := range []struct {
		name string
		yaml string
		set  func(*Config)
	}{
		{"field pointer into nothing",
			strings.Replace(valid, "subject: /subject", "subject: /title", 1),
			func(c *Config) { c.Effects[0].Fields["subject"] = "/title" }},
		{"a process fault without a process",
			valid + "\nfaults: [crash]\n",
			func(c *Config) { c.Faults = []model.Fault{model.FaultCrash} }},
		{"a process fault set in the world",
			valid + "\nfaults: [crash]\n",
			func(c *Config) { c.World.Faults = []model.Fault{model.FaultCrash} }},
		{"key never sent",
			strings.Replace(valid, `Idempotency-Key: "{{key}}"`, `Idempotency-Key: "fixed"`, 1),
			func(c *Config) { c.HTTP.Headers["Idempotency-Key"] = "fixed" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, fileErr := Parse("bad.yaml", []byte(tc.yaml))
			if fileErr == nil {
				t.Fatal("Parse: no error")
			}
			cfg, err := Parse("contract.yaml", ticketsvc.Contract)
			if err != nil {
				t.Fatal(err)
			}
			tc.set(&cfg)
			_, goErr := Open(context.Background(), cfg)
			if goErr == nil {
				t.Fatal("Open: no error")
			}
			if !errors.Is(fileErr, ErrContract) || !errors.Is(goErr, ErrContract) {
				t.Errorf("not contract errors: %v; %v", fileErr, goErr)
			}
			want := strings.TrimPrefix(goErr.Error(), ErrContract.Error()+": ")
			if got := strings.TrimPrefix(fileErr.Error(), ErrContract.Error()+": bad.yaml: "); got != want {
				t.Errorf("from the file: %s\nset in Go:     %s", got, want)
			}
		})
	}
}

// A crash lands at the last effect table's write: effects given by a query
// after it are never cut off from it, and the run says so; with the last
// effect a table, or no fault that lands there, it says nothing.
func TestQueryAfterCrashTableNoted(t *testing.T) {
	orders := model.Effect{Table: "orders"}
	lines := model.Effect{Table: "order_lines", Query: "SELECT 1"}
	for _, tc := range []struct {
		faults  []model.Fault
		effects []model.Effect
		noted   bool
	}{
		{[]model.Fault{model.FaultCrash}, []model.Effect{orders, lines}, true},
		{[]model.Fault{model.FaultDBError}, []model.Effect{orders, lines}, true},
		{[]model.Fault{model.FaultCrash}, []model.Effect{lines, orders}, false},
		{[]model.Fault{model.FaultLoseReply}, []model.Effect{orders, lines}, false},
		{[]model.Fault{model.FaultCrash}, []model.Effect{orders}, false},
	} {
		n := queryAfterCrashTable(tc.faults, tc.effects)
		if tc.noted != (n != "") || (tc.noted && !strings.Contains(n, "order_lines") || tc.noted && !strings.Contains(n, "write to orders")) {
			t.Errorf("faults %v, effects %v: note %q, want noted %v", tc.faults, tc.effects, n, tc.noted)
		}
	}
}

// What a fault kind needs is read from model's registry: each need
// missing is refused with what it is, and a contract that has them all is
// accepted.
func TestFaultNeedsFromTheRegistry(t *testing.T) {
	effects := []model.Effect{{Table: "tickets"}}
	two := &process.Spec{Replicas: 2}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"pause-key-record on one replica", Config{Faults: []model.Fault{model.FaultPauseKeyRecord}, Process: &process.Spec{Replicas: 1}, KeyTable: "keys", Effects: effects}, "needs process.replicas of 2"},
		{"pause-key-record without key_table", Config{Faults: []model.Fault{model.FaultPauseKeyRecord}, Process: two, Effects: effects}, "needs key_table"},
		{"pause-key-record with effects only by query", Config{Faults: []model.Fault{model.FaultPauseKeyRecord}, Process: two, KeyTable: "keys", Effects: []model.Effect{{Table: "t", Query: "SELECT 1"}}}, "needs an effect table"},
		{"pause-key-record with all it needs", Config{Faults: []model.Fault{model.FaultPauseKeyRecord}, Process: two, KeyTable: "keys", Effects: effects}, ""},
		{"crash-after-commit of a Go target", Config{Faults: []model.Fault{model.FaultCrashAfterCommit}, Process: two, Target: client.Func(nil), Effects: effects}, "needs an HTTP target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.checkFaults()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// Plans run at once only under faults that touch nothing the others
// share: a fault of the processes, a dependency or a whole table makes
// them run one at a time, and the run says why.
func TestWorkersUnderSharedFaults(t *testing.T) {
	for _, tc := range []struct {
		fault model.Fault
		want  int
		note  string
	}{
		{model.FaultLoseReply, 4, ""},
		{model.FaultCrash, 1, "the crash fault acts on the service's processes"},
		{model.FaultDepRestart, 1, "the dep-restart fault acts on the service's dependencies"},
		{model.FaultDBError, 1, "the db-error fault acts on a whole effect table"},
	} {
		r := &runner{cfg: Config{Workers: 4, Faults: []model.Fault{tc.fault}}}
		got := r.workers()
		if got != tc.want || (tc.note == "") != (len(r.notes) == 0) || tc.note != "" && !strings.Contains(r.notes[0], tc.note) {
			t.Errorf("%s: %d workers, notes %q; want %d, a note saying %q", tc.fault, got, r.notes, tc.want, tc.note)
		}
	}
}
