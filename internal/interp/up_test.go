//go:build unix

package interp_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/fault/nemesis"
	"github.com/idemstress/idemstress/internal/interp"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
)

// A plan begins with every replica up: a crash or restart that an earlier
// plan left half done (cut short by the shrink budget) does not meet the
// next plan's calls with a replica down, for its refused connections would
// be blamed on the service. Killed here as a cut-short crash leaves it.
func TestPlanBeginsWithEveryReplicaUp(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "echoserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../process/testdata/echoserver").CombinedOutput(); err != nil {
		t.Fatalf("go build echoserver: %v\n%s", err, out)
	}
	svc, err := process.Start(t.Context(), process.Spec{Command: []string{bin, "-listen", "127.0.0.1:{port}"}, StopTimeout: 2 * time.Second}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	tgt, err := client.NewHTTP(client.HTTPSpec{URL: "http://" + svc.Addrs()[0] + "/x", Method: "POST",
		Headers: map[string]string{"Idempotency-Key": "{{key}}"}, ID: "/pid"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := interp.Executor{Target: tgt, Spec: contract.Spec{Contract: model.Contract{Payload: map[string]any{"n": 1}}.WithDefaults()}, Nemesis: &nemesis.Faults{Service: nemesis.Processes(svc)}}
	plan := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}}}}
	before := svc.PID(0)
	if err := svc.Kill(0); err != nil {
		t.Fatal(err)
	}
	h, err := x.Execute(t.Context(), "up-", plan, time.Now())
	if err != nil {
		t.Fatalf("Execute with replica 0 left down: %v", err)
	}
	if len(h.Ops) != 1 || h.Ops[0].Out.Kind != model.OK || !svc.Alive(0) || svc.PID(0) == before {
		t.Fatalf("replica 0 alive %v (pid %d, was %d); history %v; want it started again and the call answered ok", svc.Alive(0), svc.PID(0), before, h.Ops)
	}
}
