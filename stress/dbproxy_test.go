package stress_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// The in-process sample reaches its database only through the proxy its
// run starts (Config.DBProxy): the run passes, so every call went through
// it, and once the run is over no goroutine of the proxy is left.
func TestRunThroughDBProxy(t *testing.T) {
	svc := stresstest.StartSampleDBProxied(t, cluster, "correct", ticketsvc.LayoutKeys)
	cfg, err := svc.Config(15, 4)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DBProxy == "" {
		t.Fatal("the proxied sample's Config names no DBProxy")
	}
	var log strings.Builder
	cfg.Log = &log
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass {
		t.Fatalf("verdict %s: %v", res.Verdict, res.Err)
	}
	if !strings.Contains(log.String(), "database proxy at "+cfg.DBProxy) {
		t.Errorf("the run did not say where the proxy listens:\n%s", log.String())
	}
	buf := make([]byte, 1<<20)
	if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "internal/pgproxy.") {
		t.Errorf("a goroutine of the proxy outlived the run:\n%s", stacks)
	}
}

// Without the proxy the proxied sample has no database: a run that does
// not start one cannot pass (what makes the test above a test).
func TestDBProxiedSampleNeedsTheProxy(t *testing.T) {
	svc := stresstest.StartSampleDBProxied(t, cluster, "correct", ticketsvc.LayoutKeys)
	cfg, err := svc.Config(3, 4)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBProxy = ""
	res, err := stress.Run(t.Context(), cfg)
	if err == nil && res.Verdict == checks.Pass {
		t.Fatal("the run passed with no proxy where the service's database is")
	}
}
