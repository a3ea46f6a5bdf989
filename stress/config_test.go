package stress

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
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
			if !errors.Is(fileErr, contract.ErrContract) || !errors.Is(goErr, contract.ErrContract) {
				t.Errorf("not contract errors: %v; %v", fileErr, goErr)
			}
			want := strings.TrimPrefix(goErr.Error(), contract.ErrContract.Error()+": ")
			if got := strings.TrimPrefix(fileErr.Error(), contract.ErrContract.Error()+": bad.yaml: "); got != want {
				t.Errorf("from the file: %s\nset in Go:     %s", got, want)
			}
		})
	}
}

// What the contract file says of the calls to draw reaches the run's
// world (worldOf), whether the Config kept Parse's World or a Go caller
// left it zero: keys not required, a key in the path (no keyless call),
// request noise that is part of identity, values another action holds
// (only with the answer that refuses them). Parse's World itself is the
// caller's bounds: gen.DefaultWorld, narrowed by nothing.
func TestFileWorld(t *testing.T) {
	sample := string(ticketsvc.Contract)
	taken := "answers:\n  taken:\n    - status: [403]\n      equals: {/error: name_taken}\n"
	for _, tc := range []struct {
		name, add string
		check     func(gen.World) bool
	}{
		{"keys required by default", "", func(w gen.World) bool {
			return w.KeyRequired && !w.Unique && slices.Contains(w.Noise, model.NoiseQuery)
		}},
		{"key_required: false", "key_required: true", func(w gen.World) bool { return !w.KeyRequired && w.Keyless }},
		{"key in the path", "8080/tickets", func(w gen.World) bool { return !w.KeyRequired && !w.Keyless }},
		{"identity noise", "identity_noise: [query]\n", func(w gen.World) bool {
			return !slices.Contains(w.Noise, model.NoiseQuery) && slices.Contains(w.Noise, model.NoiseTrace)
		}},
		{"unique with taken", "unique: [/subject]\n" + taken, func(w gen.World) bool { return w.Unique }},
		{"unique without taken", "unique: [/subject]\n", func(w gen.World) bool { return !w.Unique }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := sample + "\n" + tc.add
			switch tc.add {
			case "key_required: true":
				doc = strings.Replace(sample, "key_required: true", "key_required: false", 1)
			case "8080/tickets":
				doc = strings.Replace(sample, "8080/tickets", "8080/tickets/{{key}}", 1)
			}
			cfg, err := Parse("c.yaml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.World, gen.DefaultWorld()) {
				t.Errorf("parsed world %+v; want gen.DefaultWorld, the caller's bounds", cfg.World)
			}
			for _, bounds := range []gen.World{cfg.World, {}} {
				c := cfg
				c.World = bounds
				if err := c.defaults(); err != nil {
					t.Fatal(err)
				}
				if !tc.check(c.World) {
					t.Errorf("world after defaults %+v", c.World)
				}
			}
		})
	}
}
