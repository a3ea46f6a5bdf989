package fault

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/fault/httpproxy"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/respproxy"
	"github.com/idemstress/idemstress/internal/testbed/loopback"
)

// fakeEnv is a CallEnv over one real HTTP server behind a real fault
// proxy, with replicas that only count their kills.
type fakeEnv struct {
	proxy    *httpproxy.Proxy
	replicas *countingReplicas
	sent     int
}

type countingReplicas struct{ killed []int }

func (r *countingReplicas) Addrs() []string             { return []string{"a", "b"} }
func (r *countingReplicas) Kill(i int) error            { r.killed = append(r.killed, i); return nil }
func (r *countingReplicas) Pause(int) error             { return nil }
func (r *countingReplicas) Resume(int) error            { return nil }
func (e *fakeEnv) Token() string                        { return "t" + string(rune('0'+e.sent)) }
func (e *fakeEnv) Proxy() *httpproxy.Proxy              { return e.proxy }
func (e *fakeEnv) EffectStall() *dbstall.Stall          { return nil }
func (e *fakeEnv) KeyStall() *dbstall.Stall             { return nil }
func (e *fakeEnv) Contract() model.Contract             { return model.Contract{} }
func (e *fakeEnv) Dependency(string) (Dependency, bool) { return nil, false }
func (e *fakeEnv) DB() *pgproxy.Proxy                   { return nil }
func (e *fakeEnv) DBCall() *pgproxy.Call                { return nil }
func (e *fakeEnv) DepCall(string) *respproxy.Call       { return nil }

// Restart restarts nothing: the replicas only count their kills.
func (r *countingReplicas) Restart(context.Context, int) error { return nil }

func (e *fakeEnv) Replicas() Replicas {
	if e.replicas == nil {
		return nil
	}
	return e.replicas
}

// Send posts through the proxy; an answer that never came is an unknown
// outcome, as the executor records it.
func (e *fakeEnv) Send(ctx context.Context, call model.Call, _ int, extra map[string]string) (model.Op, error) {
	e.sent++
	return loopback.Send(ctx, e.proxy.Addr(), call, extra), nil
}

func proxiedEnv(t *testing.T, status int, replicas *countingReplicas) *fakeEnv {
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
	return &fakeEnv{proxy: p, replicas: replicas}
}

// A call fault sends its call itself and says whether
// it fired: a lost reply fires and leaves the call unanswered; a crash
// after the commit kills replica 0 once the service answered, and fires
// (cutting the action off) only when that answer was a 2xx.
func TestCallFaultsSayWhatTheyDid(t *testing.T) {
	t.Run("lose-reply", func(t *testing.T) {
		do := Proxied
		out, err := do(t.Context(), proxiedEnv(t, 201, nil), model.Call{Key: "k1", Fault: model.FaultLoseReply})
		if err != nil || !out.Fired || len(out.Ops) != 1 || out.Ops[0].Out.Kind != model.Unknown || out.Down {
			t.Fatalf("outcome %+v, err %v; want one unanswered call, fired, nothing down", out, err)
		}
	})
	for status, fired := range map[int]bool{201: true, 500: false} {
		t.Run("crash-after-commit", func(t *testing.T) {
			r := &countingReplicas{}
			do := CrashAfterCommit
			out, err := do(t.Context(), proxiedEnv(t, status, r), model.Call{Key: "k1", Fault: model.FaultCrashAfterCommit})
			if err != nil || len(r.killed) != 1 || r.killed[0] != 0 || !out.Down {
				t.Fatalf("answer %d: outcome %+v, err %v, killed %v; want replica 0 killed and down", status, out, err, r.killed)
			}
			if out.Fired != fired || out.CutOff != fired || fired != (out.Note == "") {
				t.Fatalf("answer %d: fired %v, cut off %v, note %q; want fired %v", status, out.Fired, out.CutOff, out.Note, fired)
			}
		})
	}
	t.Run("without what it needs", func(t *testing.T) {
		do := CrashAfterCommit
		env := proxiedEnv(t, 201, nil)
		if _, err := do(t.Context(), env, model.Call{Fault: model.FaultCrashAfterCommit}); err == nil || !strings.Contains(err.Error(), "needs a service that idemstress starts") || env.sent != 0 {
			t.Fatalf("err %v after %d calls; want it refused before any call", err, env.sent)
		}
	})
	// The faults that land at a write refuse a run without the table to
	// hold, before any call.
	atWrite := []struct {
		f  model.Fault
		do CallFault
	}{{model.FaultCrash, Crash}, {model.FaultCrashKeyRecord, CrashKeyRecord}, {model.FaultPause, Pause}, {model.FaultPauseKeyRecord, PauseKeyRecord}}
	for _, k := range atWrite {
		f, do := k.f, k.do
		t.Run(string(f)+" without an effect table", func(t *testing.T) {
			env := proxiedEnv(t, 201, &countingReplicas{})
			if _, err := do(t.Context(), env, model.Call{Fault: f}); err == nil || !strings.Contains(err.Error(), "needs an effect table") || env.sent != 0 {
				t.Fatalf("err %v after %d calls; want it refused before any call", err, env.sent)
			}
		})
	}
}
