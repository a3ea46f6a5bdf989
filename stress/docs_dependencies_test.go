package stress_test

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// docs/faults.md's "Dependencies" example parses as the process section of the
// sample's contract, and declares the Redis the sample's keys-in-redis
// mode runs with.
func TestDocsDependencies(t *testing.T) {
	readme, err := os.ReadFile("../docs/faults.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "### Dependencies")
	if start < 0 {
		t.Fatal(`docs/faults.md has no "### Dependencies" section`)
	}
	text = text[start:]
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(text)
	if block == nil {
		t.Fatal("the Dependencies section has no YAML block")
	}
	cfg, err := stress.Parse("dependencies.yaml", append(append([]byte{}, ticketsvc.Contract...), "\n"+block[1]...))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Process == nil || len(cfg.Process.Dependencies) != 1 {
		t.Fatalf("process %+v: want one dependency", cfg.Process)
	}
	got, want := cfg.Process.Dependencies[0], sample.Redis("redis-server", false)
	if got.Name != want.Name || !slices.Equal(got.Command, want.Command) || got.URL != want.URL || got.Ready != want.Ready {
		t.Errorf("README's dependency %+v\nthe sample's         %+v", got, want)
	}
	if !slices.Equal(cfg.Faults, faultkind.DependencyFaults) {
		t.Errorf("faults %v, want %v", cfg.Faults, faultkind.DependencyFaults)
	}
	if !slices.Contains(cfg.Process.Command, "{dep.redis.url}") {
		t.Errorf("the service's command %q is not handed {dep.redis.url}", cfg.Process.Command)
	}
}

// A dependency's fault without a dependency to act on is a contract error,
// found before anything starts; with one declared, the same faults pass
// the check.
func TestDependencyFaultsNeedDependencies(t *testing.T) {
	cfg, err := stress.Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Faults = []model.Fault{model.FaultDepRestart}
	cfg.Process = &process.Spec{Command: []string{"./ticketsvc"}}
	_, err = stress.Open(t.Context(), cfg)
	if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "dep-restart needs process.dependencies") {
		t.Fatalf("Open: %v, want a contract error naming process.dependencies", err)
	}
}

// The README's "Faults beyond the service" gives one example each of
// dependencies, errors: and lease:, and each parses as a part of the
// sample's contract and says what the section says it does.
func TestREADMEFaultsBeyondTheService(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "## Faults beyond the service")
	if start < 0 {
		t.Fatal(`the README has no "## Faults beyond the service" section`)
	}
	text = text[start+3:]
	text = text[:strings.Index(text, "\n## ")]
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(text, -1)
	if len(blocks) != 3 {
		t.Fatalf("%d YAML blocks, want 3: dependencies, errors:, lease:", len(blocks))
	}
	var cfgs []stress.Config
	for i, b := range blocks {
		cfg, err := stress.Parse("readme.yaml", append(append([]byte{}, ticketsvc.Contract...), "\n"+b[1]...))
		if err != nil {
			t.Fatalf("block %d: %v", i+1, err)
		}
		cfgs = append(cfgs, cfg)
	}
	deps, errs, lease := cfgs[0], cfgs[1], cfgs[2]
	if deps.Process == nil || len(deps.Process.Dependencies) != 1 {
		t.Fatalf("dependencies block: process %+v, want one dependency", deps.Process)
	}
	got, want := deps.Process.Dependencies[0], sample.Redis("redis-server", false)
	if got.Name != want.Name || !slices.Equal(got.Command, want.Command) || got.URL != want.URL || got.Ready != want.Ready {
		t.Errorf("README's dependency %+v\nthe sample's         %+v", got, want)
	}
	if !slices.Equal(deps.Faults, faultkind.DependencyFaults) {
		t.Errorf("dependencies block: faults %v, want %v", deps.Faults, faultkind.DependencyFaults)
	}
	if errs.Contract.ErrorsStored || !slices.Equal(errs.Faults, []model.Fault{model.FaultDBError}) {
		t.Errorf("errors block: stored %v, faults %v; want not stored, [db-error]", errs.Contract.ErrorsStored, errs.Faults)
	}
	if lease.Contract.Lease != ticketsvc.ShortLease || !slices.Equal(lease.Faults, []model.Fault{model.FaultSlowOriginal}) {
		t.Errorf("lease block: lease %v, faults %v; want the short-lease mode's %v, [slow-original]", lease.Contract.Lease, lease.Faults, ticketsvc.ShortLease)
	}
}
