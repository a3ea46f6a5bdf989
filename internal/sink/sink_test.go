package sink_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/sink"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// post sends one delivery and says whether the sink answered 200.
func post(t *testing.T, url, body string) bool {
	t.Helper()
	c := &http.Client{Timeout: 300 * time.Millisecond}
	defer c.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodPost, url+"/hook", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func TestFaultsTakeEachActionsAttemptsInTurn(t *testing.T) {
	r, err := sink.Start(effect.Sink{Name: "hooks", Key: "/key", Faults: []model.SinkFault{model.Sink500, model.SinkDrop, model.SinkSlow}, Slow: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	t0 := time.Now()
	var answered []bool
	for range 4 {
		answered = append(answered, post(t, r.URL(), `{"key":"ns1-k1"}`))
	}
	other := post(t, r.URL(), `{"key":"ns2-k1"}`)
	if want := []bool{false, false, false, true}; !bytes.Equal(boolBytes(answered), boolBytes(want)) || other {
		t.Fatalf("answered %v then %v for another action; want %v then false (its own first attempt)", answered, other, want)
	}
	// The slow answer is recorded once the sender gave up on it.
	deadline := time.Now().Add(5 * time.Second)
	var got []model.Delivery
	for len(got) < 4 && time.Now().Before(deadline) {
		got = r.Peek(t0, func(b []byte) bool { return bytes.Contains(b, []byte("ns1-")) })
		time.Sleep(10 * time.Millisecond)
	}
	got = r.Take(t0, func(b []byte) bool { return bytes.Contains(b, []byte("ns1-")) })
	var faults []model.SinkFault
	for i, d := range got {
		faults = append(faults, d.Fault)
		if d.Method != http.MethodPost || http.Header(d.Header).Get("Content-Type") != "application/json" || d.Time <= 0 || i > 0 && d.Time < got[i-1].Time {
			t.Errorf("delivery %d: %s %v at %d; want a POST with its headers, in the order they arrived", i, d.Method, d.Header, d.Time)
		}
		if got := http.Header(d.Header).Get("Authorization"); got != "(masked)" {
			t.Errorf("delivery %d: Authorization %q kept, want it masked", i, got)
		}
		if d.Accepted != (d.Fault == model.SinkNone) {
			t.Errorf("delivery %d (%q): accepted %v", i, d.Fault, d.Accepted)
		}
	}
	if want := []model.SinkFault{model.Sink500, model.SinkDrop, model.SinkSlow, model.SinkNone}; !equal(faults, want) {
		t.Fatalf("faults %q; want %q", faults, want)
	}
	if again := r.Take(t0, func(b []byte) bool { return bytes.Contains(b, []byte("ns1-")) }); len(again) != 0 {
		t.Errorf("taken twice: %d", len(again))
	}
	if left := r.Take(t0, func([]byte) bool { return true }); len(left) != 1 {
		t.Errorf("the other plan's delivery: %d kept, want 1", len(left))
	}
}

func boolBytes(bs []bool) []byte {
	out := make([]byte, len(bs))
	for i, b := range bs {
		if b {
			out[i] = 1
		}
	}
	return out
}

func equal(a, b []model.SinkFault) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAFixedAddressInUseSaysSo(t *testing.T) {
	r, err := sink.Start(effect.Sink{Name: "hooks", Key: "/key"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = sink.Start(effect.Sink{Name: "again", Key: "/key", Addr: r.URL()[len("http://"):]})
	if err == nil {
		t.Fatal("a second sink on the same address started")
	}
}
