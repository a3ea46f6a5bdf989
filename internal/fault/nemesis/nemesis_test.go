package nemesis

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/fault/httpproxy"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/respproxy"
	"github.com/idemstress/idemstress/internal/testbed/loopback"
)

// fakeService is a Service of two replicas that records what was done
// to them; its replicas exit on their own when exits says so.
type fakeService struct {
	killed             []int
	ups                int
	restarted, revived []int
	exits              []process.Exit
}

func (s *fakeService) Addrs() []string          { return []string{"a", "b"} }
func (s *fakeService) Kill(i int) error         { s.killed = append(s.killed, i); return nil }
func (s *fakeService) Pause(int) error          { return nil }
func (s *fakeService) Resume(int) error         { return nil }
func (s *fakeService) Up(context.Context) error { s.ups++; return nil }
func (s *fakeService) Restart(_ context.Context, i int) error {
	s.restarted = append(s.restarted, i)
	return nil
}
func (s *fakeService) Revive(_ context.Context, i int) error {
	s.revived = append(s.revived, i)
	return nil
}
func (s *fakeService) Dependency(string) (fault.Dependency, bool) { return nil, false }

func (s *fakeService) ExitWithin(context.Context, time.Duration) (process.Exit, bool) {
	if len(s.exits) == 0 {
		return process.Exit{}, false
	}
	e := s.exits[0]
	s.exits = s.exits[1:]
	return e, true
}

// fakeSender sends through a real fault proxy and counts the times it
// was told a replica started again.
type fakeSender struct {
	proxy     *httpproxy.Proxy
	sent      int
	contract  model.Contract
	restarted int
}

func (s *fakeSender) Token() string                  { return "t" + string(rune('0'+s.sent)) }
func (s *fakeSender) Contract() model.Contract       { return s.contract }
func (s *fakeSender) DB() *pgproxy.Proxy             { return nil }
func (s *fakeSender) DBCall() *pgproxy.Call          { return nil }
func (s *fakeSender) DepCall(string) *respproxy.Call { return nil }
func (s *fakeSender) Restarted()                     { s.restarted++ }

// Send posts through the proxy; an answer that never came is an unknown
// outcome, as the executor records it.
func (s *fakeSender) Send(ctx context.Context, call model.Call, _ int, extra map[string]string) (model.Op, error) {
	s.sent++
	return loopback.Send(ctx, s.proxy.Addr(), call, extra), nil
}

// proxyTo is a real fault proxy in front of a service that answers
// status.
func proxyTo(t *testing.T, status int) *httpproxy.Proxy {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		io.WriteString(w, `{"id":"7"}`)
	}))
	t.Cleanup(srv.Close)
	p, err := httpproxy.Start(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// begin begins a plan on a real fault proxy in front of a service that
// answers status, and a fake service.
func begin(t *testing.T, status int) (PlanFaults, *fakeService, *fakeSender) {
	t.Helper()
	proxy := proxyTo(t, status)
	svc := &fakeService{}
	s := &fakeSender{proxy: proxy, contract: model.Contract{Recovery: time.Second}}
	p, err := (&Faults{Service: svc, Proxies: []*httpproxy.Proxy{proxy}}).Begin(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return p, svc, s
}

var _ Sender = (*fakeSender)(nil)

// A crash's aftermath is the plan's faults' to keep: the replica down
// until a restart step (or the plan's end) starts it again, and the
// action it cut off polled while it recovers.
func TestPlanFaultsKeepWhatACrashLeft(t *testing.T) {
	crash := model.Call{Tenant: "A", Key: "k1", Fault: model.FaultCrashAfterCommit}
	tests := []struct {
		name    string
		restart bool
		// restarted are the replicas restarted, by the step or by End.
		restarted []int
	}{
		{"restarted by a restart step", true, []int{0, 1}},
		{"restarted when the plan ends", false, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, svc, s := begin(t, 201)
			if svc.ups != 1 {
				t.Fatalf("Begin brought the replicas up %d times, want once", svc.ups)
			}
			out, err := p.Call(t.Context(), crash)
			if err != nil || !out.Fired || !p.Down() || !slices.Equal(svc.killed, []int{0}) {
				t.Fatalf("crash %+v, %v: down %v, killed %v; want replica 0 killed and down", out, err, p.Down(), svc.killed)
			}
			// The retry answered in_flight is sent again until answered.
			answers := []model.OutcomeKind{model.InFlight, model.OK}
			sent := 0
			resend := func(context.Context) (model.Op, error) {
				sent++
				return model.Op{Out: model.Outcome{Kind: answers[sent-1]}}, nil
			}
			retry := crash
			retry.Fault = model.FaultNone
			if err := p.Poll(t.Context(), retry, model.Op{Out: model.Outcome{Kind: model.InFlight}}, resend); err != nil || sent != 2 {
				t.Fatalf("polled %d times, %v; want 2 (in_flight, then ok)", sent, err)
			}
			if tt.restart {
				out, err := p.Step(t.Context(), model.Step{Kind: model.StepRestart})
				if err != nil || !out.Fired || p.Down() {
					t.Fatalf("restart %+v, %v, down %v; want fired and every replica up", out, err, p.Down())
				}
			}
			if err := p.End(t.Context()); err != nil || p.Down() || !slices.Equal(svc.restarted, tt.restarted) || s.restarted != 1 {
				t.Fatalf("end %v: restarted %v, told %d times; want %v, told once", err, svc.restarted, s.restarted, tt.restarted)
			}
		})
	}
}

// Only an action a crash cut off is polled, and only under a recovery
// time.
func TestPollsOnlyWhatACrashCutOff(t *testing.T) {
	p, _, _ := begin(t, 201)
	sent := 0
	resend := func(context.Context) (model.Op, error) { sent++; return model.Op{}, nil }
	inFlight := model.Op{Out: model.Outcome{Kind: model.InFlight}}
	if err := p.Poll(t.Context(), model.Call{Tenant: "A", Key: "k1"}, inFlight, resend); err != nil || sent != 0 {
		t.Fatalf("polled %d times, %v, with no crash; want none", sent, err)
	}
	// A crash that did not fire (the service answered 500) cut nothing off.
	p, _, _ = begin(t, 500)
	crash := model.Call{Tenant: "A", Key: "k1", Fault: model.FaultCrashAfterCommit}
	if out, err := p.Call(t.Context(), crash); err != nil || out.Fired || !p.Down() {
		t.Fatalf("crash %+v, %v; want it unfired and the replica down", out, err)
	}
	if err := p.Poll(t.Context(), model.Call{Tenant: "A", Key: "k1"}, inFlight, resend); err != nil || sent != 0 {
		t.Fatalf("polled %d times, %v, after an unfired crash; want none", sent, err)
	}
}

// A replica that exited on its own is started again: between plans with
// no word, during one as an exit the executor records.
func TestExitedReplicasStartAgain(t *testing.T) {
	svc := &fakeService{exits: []process.Exit{{Replica: 1}}}
	s := &fakeSender{}
	p, err := (&Faults{Service: svc}).Begin(t.Context(), s)
	if err != nil || !slices.Equal(svc.revived, []int{1}) || svc.ups != 1 {
		t.Fatalf("Begin: %v, revived %v, ups %d; want replica 1 revived, then every replica up", err, svc.revived, svc.ups)
	}
	if _, ok, err := p.Exit(t.Context(), 0); ok || err != nil {
		t.Fatalf("Exit found one (%v) with none exited", err)
	}
	svc.exits = []process.Exit{{Replica: 0, Status: "exit status 1"}}
	e, ok, err := p.Exit(t.Context(), 0)
	if !ok || err != nil || e.Status != "exit status 1" || !slices.Equal(svc.revived, []int{1, 0}) || s.restarted != 2 {
		t.Fatalf("Exit %+v %v %v: revived %v, told %d times; want replica 0's exit, it revived and told", e, ok, err, svc.revived, s.restarted)
	}
}

// What is no fault of the run's is not wrapped as its failure, and a
// burst no db-stall holds goes as it is.
func TestPlanFaultsWithoutWhatTheyNeed(t *testing.T) {
	p, err := (*Faults)(nil).Begin(t.Context(), &fakeSender{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Step(t.Context(), model.Step{Kind: model.StepRestart}); err == nil || errors.Is(err, fault.ErrInfrastructure) || err.Error() != "fault: restart needs a service that idemstress starts" {
		t.Fatalf("restart without a service: %v; want it said, not as an infrastructure failure", err)
	}
	if _, err := p.Call(t.Context(), model.Call{Fault: "melt"}); !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("an unknown call fault: %v; want ErrUnknownKind", err)
	}
	if _, err := p.Step(t.Context(), model.Step{Kind: model.StepFault, Fault: "melt"}); !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("an unknown fault step: %v; want ErrUnknownKind", err)
	}
	var sent bool
	out, err := p.Burst(t.Context(), 2, func(_ context.Context, at func(pgproxy.Point) pgproxy.Action, answered *atomic.Int64) {
		sent = at == nil && answered == nil
	})
	if err != nil || !sent || out.Kind != "" {
		t.Fatalf("burst %+v, %v, sent bare %v; want it sent as it is, no nemesis", out, err, sent)
	}
	if p.Down() || p.Failure() != nil || p.End(t.Context()) != nil {
		t.Fatal("a plan with no faults is down, failed or cannot end")
	}
}
