package stress_test

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/stress"
)

// What the file cannot get wrong, Go cannot either: the same checks run on
// a Config built or changed in Go, before anything starts.
func TestConfigCheckedLikeAFile(t *testing.T) {
	base, err := stress.Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*stress.Config)
		want string
	}{
		{"no key sent", func(c *stress.Config) { c.HTTP.Headers = map[string]string{"X-Tenant": "{{tenant}}"} }, "{{key}}"},
		{"negative timeout", func(c *stress.Config) { c.HTTP.Timeout = -time.Second }, "target.timeout"},
		{"a bad process env", func(c *stress.Config) { c.Process = &process.Spec{Command: []string{"./svc"}, Env: []string{"BAD"}} }, "process.env[0]"},
		{"an enum of one", func(c *stress.Config) {
			c.Contract.Fields = map[string]model.FieldRule{"/channel": {Enum: []any{"email"}}}
		}, "payload_rules./channel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			cfg.HTTP.Headers = maps.Clone(base.HTTP.Headers)
			tc.edit(&cfg)
			_, err := stress.Run(t.Context(), cfg)
			if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run = %v; want a contract error naming %s", err, tc.want)
			}
		})
	}
	yaml := string(ticketsvc.Contract) + "\nprocess:\n  command: [./svc]\n  env: [\"BAD\"]\n"
	if _, err := stress.Parse("bad.yaml", []byte(yaml)); !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "process.env[0]") {
		t.Errorf("a bad process env in the file: %v; want a contract error", err)
	}
}

// Negative counts and durations set in Go were taken for the defaults.
func TestRunRefusesNegativeBudgets(t *testing.T) {
	cfg, err := stress.Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	for name, set := range map[string]func(*stress.Config){
		"plans":       func(c *stress.Config) { c.Plans = -1 },
		"shrink time": func(c *stress.Config) { c.ShrinkTime = -5e9 },
		"duration":    func(c *stress.Config) { c.Duration = -1 },
	} {
		c := cfg
		set(&c)
		if _, err := stress.Run(t.Context(), c); !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err %v; want a contract error naming it", name, err)
		}
	}
}
