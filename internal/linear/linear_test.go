package linear_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"go.uber.org/goleak"
	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/internal/linear"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// linCall is one call of action A/k1 with payload variant v in encoding e,
// made from start to end (ns), and what it got back.
func linCall(v, e int, start, end int64, out model.Outcome) model.Op {
	c := model.DefaultContract()
	return model.Op{
		Call:  model.Call{Tenant: "A", Key: "k1", Variant: v, Encoding: e},
		Body:  payloads.RenderPayload(c.Payload, v, e),
		Start: start,
		End:   end,
		Out:   out,
	}
}

func linOK(id string) model.Outcome { return model.Outcome{Kind: model.OK, Status: 201, ID: id} }

func linReplayed(id string) model.Outcome { return model.Outcome{Kind: model.OK, Status: 200, ID: id} }

var (
	linConflict = model.Outcome{Kind: model.Conflict, Status: 422}
	linInFlight = model.Outcome{Kind: model.InFlight, Status: 409}
	linInvalid  = model.Outcome{Kind: model.Invalid, Status: 400}
	linLost     = model.Outcome{Kind: model.Unknown, Err: "timeout"}
	linNotFound = model.Outcome{Kind: model.Other, Status: 404}
)

func linKeyless(op model.Op) model.Op { op.Call.NoKey = true; op.Call.Key = ""; return op }

func TestLinearizable(t *testing.T) {
	c := model.DefaultContract()
	tests := []struct {
		name string
		ops  []model.Op
		want porcupine.CheckResult
	}{
		{"no calls", nil, porcupine.Ok},
		{"sequential create then re-encoded replay", []model.Op{
			linCall(0, 0, 0, 10, linOK("7")),
			linCall(0, 1, 20, 30, linReplayed("7")),
		}, porcupine.Ok},
		{"overlapping equal payloads both ok with the same id", []model.Op{
			linCall(0, 0, 0, 10, linOK("7")),
			linCall(0, 2, 5, 15, linReplayed("7")),
		}, porcupine.Ok},
		// The later-starting call won the race: judging by start order
		// (as Walk does) would wrongly reject this.
		{"overlapping v0 conflict and v1 ok: the later starter won", []model.Op{
			linCall(0, 0, 0, 20, linConflict),
			linCall(1, 0, 5, 15, linOK("7")),
		}, porcupine.Ok},
		{"overlapping equal payloads, one in flight", []model.Op{
			linCall(0, 0, 0, 20, linOK("7")),
			linCall(0, 3, 5, 10, linInFlight),
		}, porcupine.Ok},
		{"intervals that touch overlap", []model.Op{
			linCall(0, 0, 0, 10, linOK("7")),
			linCall(0, 0, 10, 20, linInFlight),
		}, porcupine.Ok},
		{"unknown then an ok replay with an id never seen", []model.Op{
			linCall(0, 0, 0, 10, linLost),
			linCall(0, 1, 20, 30, linReplayed("9")),
		}, porcupine.Ok},
		{"unknown then conflict for another payload: the unknown took effect", []model.Op{
			linCall(0, 0, 0, 10, linLost),
			linCall(1, 0, 20, 30, linConflict),
		}, porcupine.Ok},
		{"unknown overlaps later calls: in flight after it", []model.Op{
			linCall(0, 0, 0, 10, linLost),
			linCall(0, 0, 20, 30, linInFlight),
			linCall(0, 0, 40, 50, linOK("9")),
		}, porcupine.Ok},
		{"unknown, then in flight and conflict for another payload", []model.Op{
			linCall(0, 0, 0, 10, linLost),
			linCall(1, 0, 20, 30, linInFlight),
			linCall(1, 0, 40, 50, linConflict),
		}, porcupine.Ok},
		{"keyless calls are ignored", []model.Op{
			linCall(0, 0, 0, 10, linOK("7")),
			linKeyless(linCall(0, 0, 20, 30, linInvalid)),
			linKeyless(linCall(0, 0, 40, 50, linOK("8"))),
			linCall(0, 0, 60, 70, linReplayed("7")),
		}, porcupine.Ok},

		{"non-overlapping oks with different ids", []model.Op{
			linCall(0, 0, 0, 10, linOK("7")),
			linCall(0, 0, 20, 30, linOK("8")),
		}, porcupine.Illegal},
		{"overlapping oks with different ids", []model.Op{
			linCall(0, 0, 0, 20, linOK("7")),
			linCall(0, 1, 5, 15, linOK("8")),
		}, porcupine.Illegal},
		{"in flight with nothing overlapping", []model.Op{
			linCall(0, 0, 0, 10, linOK("7")),
			linCall(0, 0, 20, 30, linInFlight),
		}, porcupine.Illegal},
		{"conflict before any call could have created the action", []model.Op{
			linCall(1, 0, 0, 10, linConflict),
			linCall(0, 0, 20, 30, linOK("7")),
		}, porcupine.Illegal},
		{"overlapping v0 and v1 both ok: changed payload accepted", []model.Op{
			linCall(0, 0, 0, 20, linOK("7")),
			linCall(1, 0, 5, 15, linReplayed("7")),
		}, porcupine.Illegal},
		{"ok replay of v0 after v1 was created", []model.Op{
			linCall(1, 0, 0, 10, linOK("7")),
			linCall(0, 0, 20, 30, linReplayed("7")),
		}, porcupine.Illegal},
		{"unknown then conflict for an equivalent payload", []model.Op{
			linCall(0, 0, 0, 10, linLost),
			linCall(0, 2, 20, 30, linConflict),
		}, porcupine.Illegal},
		{"invalid for a call with a key", []model.Op{
			linCall(0, 0, 0, 10, linInvalid),
		}, porcupine.Illegal},
		{"an answer outside the contract", []model.Op{
			linCall(0, 0, 0, 10, linNotFound),
			linCall(0, 0, 20, 30, linOK("7")),
		}, porcupine.Illegal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := linear.Linearizable(c, tt.ops, 10*time.Second)
			if got != tt.want {
				t.Errorf("Linearizable = %s, want %s", got, tt.want)
			}
		})
	}
}

// Walk judges calls in the order given; for overlapping calls that order is
// not the order they took effect in, which is why Linearizable exists.
func TestLinearizableAcceptsWhatStartOrderRejects(t *testing.T) {
	c := model.DefaultContract()
	ops := []model.Op{
		linCall(0, 0, 0, 20, linConflict),
		linCall(1, 0, 5, 15, linOK("7")),
	}
	if findings, _ := reference.Walk(c, ops); len(findings) == 0 {
		t.Fatalf("Walk in start order found nothing; the case no longer shows the difference")
	}
	if got, _ := linear.Linearizable(c, ops, 10*time.Second); got != porcupine.Ok {
		t.Errorf("Linearizable = %s, want %s: the later starter may have won", got, porcupine.Ok)
	}
}

// For calls made one after another, the only serial order is the real-time
// one, so Linearizable must agree with Walk. Unknown calls are included:
// both read them as open-ended (Walk lets every later call answer in_flight).
// The answers come from a simple honest target with an occasional wrong
// answer, so both correct and incorrect histories are frequent.
func TestLinearizableAgreesWithWalkOnSequentialHistories(t *testing.T) {
	bytesEq := model.DefaultContract()
	bytesEq.Equivalence = model.EquivalenceBytes
	contracts := rapid.SampledFrom([]model.Contract{model.DefaultContract(), bytesEq})
	wrong := rapid.SampledFrom([]model.Outcome{
		linOK("1"), linOK("2"), linReplayed("3"), linConflict, linInFlight, linInvalid, linLost,
	})
	rapid.Check(t, func(t *rapid.T) {
		c := contracts.Draw(t, "contract")
		n := rapid.IntRange(0, 12).Draw(t, "calls")
		ops := make([]model.Op, n)
		// The honest target's state: created by which variant, with which ID.
		created, winner, winnerEnc, id, lost := false, 0, 0, "", false
		same := func(v, e int) bool {
			return v == winner && (c.Equivalence != model.EquivalenceBytes || e == winnerEnc)
		}
		at := int64(0)
		for i := range ops {
			v := rapid.IntRange(0, 2).Draw(t, "variant")
			e := rapid.IntRange(0, payloads.NumEncodings-1).Draw(t, "encoding")
			var out model.Outcome
			switch {
			case rapid.IntRange(0, 9).Draw(t, "wrong") == 0:
				out = wrong.Draw(t, "wrong answer")
			case rapid.IntRange(0, 4).Draw(t, "lost") == 0:
				out = linLost
				if !created && rapid.Bool().Draw(t, "took effect") {
					created, winner, winnerEnc = true, v, e
				}
			case lost && rapid.IntRange(0, 3).Draw(t, "in flight") == 0:
				out = linInFlight
			case !created:
				created, winner, winnerEnc, id = true, v, e, "1"
				out = linOK(id)
			case !same(v, e):
				out = linConflict
			default:
				if id == "" {
					id = "1"
				}
				out = linReplayed(id)
			}
			lost = lost || out.Kind == model.Unknown
			took := rapid.Int64Range(0, 5).Draw(t, "duration")
			ops[i] = linCall(v, e, at, at+took, out)
			at += took + 1 + rapid.Int64Range(0, 5).Draw(t, "gap")
		}
		findings, _ := reference.Walk(c, ops)
		got, _ := linear.Linearizable(c, ops, 10*time.Second)
		want := porcupine.Ok
		if len(findings) > 0 {
			want = porcupine.Illegal
		}
		if got != want {
			t.Fatalf("Linearizable = %s, Walk findings %v", got, findings)
		}
	})
}

// linBurst is n+2 calls released at once: two with equal payloads that both
// claim to have created the action, with different IDs, and n with other
// payloads refused as conflicts. It is illegal, but the conflicts fit in any
// order once the action exists, so the search tries 2^n orders first.
func linBurst(n int) []model.Op {
	ops := []model.Op{
		linCall(0, 0, 0, 100, linOK("7")),
		linCall(0, 1, 0, 100, linOK("8")),
	}
	for i := range n {
		ops = append(ops, linCall(1+i%2, i%payloads.NumEncodings, 0, 100, linConflict))
	}
	return ops
}

func TestLinearizableTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c := model.DefaultContract()
	if got, _ := linear.Linearizable(c, linBurst(6), 0); got != porcupine.Illegal {
		t.Fatalf("small burst without a bound: Linearizable = %s, want %s", got, porcupine.Illegal)
	}
	start := time.Now()
	got, _ := linear.Linearizable(c, linBurst(40), time.Nanosecond)
	if got != porcupine.Unknown {
		t.Errorf("big burst with a 1ns bound: Linearizable = %s, want %s", got, porcupine.Unknown)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a 1ns bound took %v to give up", took)
	}
}

// in_flight answers fit in any order, so a burst answered mostly in_flight
// must not make the search exponential.
func TestLinearizableBurstOfInFlightIsCheap(t *testing.T) {
	c := model.DefaultContract()
	ops := []model.Op{
		linCall(0, 0, 0, 100, linOK("7")),
		linCall(0, 1, 0, 100, linOK("8")),
	}
	for i := range 40 {
		ops = append(ops, linCall(i%3, i%payloads.NumEncodings, 0, 100, linInFlight))
	}
	if got, _ := linear.Linearizable(c, ops, 10*time.Second); got != porcupine.Illegal {
		t.Errorf("Linearizable = %s, want %s", got, porcupine.Illegal)
	}
	if got, _ := linear.Linearizable(c, ops[1:], 10*time.Second); got != porcupine.Ok {
		t.Errorf("without the second creation: Linearizable = %s, want %s", got, porcupine.Ok)
	}
}

func TestTimelineDescriptions(t *testing.T) {
	c := model.DefaultContract()
	tests := []struct {
		name string
		ops  []model.Op
		want []string
		not  []string
	}{
		{"linearizable", []model.Op{
			linCall(0, 0, 0, 20, linConflict),
			linCall(1, 0, 5, 15, linOK("7")),
			linCall(1, 2, 30, 40, linLost),
		}, []string{
			"A/k1 v0 → conflict 422",
			"A/k1 v1 → ok 201 id 7",
			"A/k1 v1e2 → no answer (timeout)",
			"created(v1, id 7)",
		}, nil},
		{"not linearizable", []model.Op{
			linCall(0, 0, 0, 10, linLost),
			linCall(0, 0, 20, 30, linOK("7")),
			linCall(0, 0, 40, 50, linOK("8")),
		}, []string{
			"A/k1 v0 → no answer (timeout)",
			"A/k1 v0 → ok 201 id 8",
			"created(v0, id not yet seen)",
		}, nil},
		{"in flight calls are annotations", []model.Op{
			linCall(0, 0, 0, 20, linOK("7")),
			linCall(0, 0, 5, 10, linInFlight),
		}, []string{
			"A/k1 v0 → ok 201 id 7",
			"A/k1 v0 → in_flight 409",
			"in_flight while another call ran",
		}, nil},
		// Equivalent payloads make one state: no state is listed twice.
		{"re-encoded unknown calls are one state", []model.Op{
			linCall(0, 0, 0, 10, linLost),
			linCall(0, 1, 20, 30, linLost),
		}, []string{
			"{absent, created(v0, id not yet seen)}",
			"gave up at 30",
		}, []string{
			"id not yet seen), created",
		}},
		{"no calls", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			_, info := linear.Linearizable(c, tt.ops, 10*time.Second)
			if err := porcupine.Visualize(linear.LinModel(c), info, &b); err != nil {
				t.Fatal(err)
			}
			html := b.String()
			if !strings.Contains(html, "<html") {
				t.Errorf("timeline is not HTML: %.200q", html)
			}
			for _, w := range tt.want {
				if !strings.Contains(html, w) {
					t.Errorf("timeline lacks %q", w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(html, w) {
					t.Errorf("timeline has %q", w)
				}
			}
		})
	}
}

// Two calls raced; the one that started later created the action and the
// other was refused: a serial order exists, so the answers are correct.
func ExampleLinearizable() {
	c := model.DefaultContract()
	call := func(variant int) model.Call { return model.Call{Tenant: "A", Key: "k1", Variant: variant} }
	ops := []model.Op{
		{Call: call(0), Body: payloads.RenderPayload(c.Payload, 0, 0), Start: 0, End: 20,
			Out: model.Outcome{Kind: model.Conflict, Status: 422}},
		{Call: call(1), Body: payloads.RenderPayload(c.Payload, 1, 0), Start: 5, End: 15,
			Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}},
	}
	result, _ := linear.Linearizable(c, ops, time.Second)
	fmt.Println(result)
	// Output: Ok
}

// A service that claims the key first holds it while a call runs that is
// then refused as taken (or fails, or was refused for its input): a call
// of the same action with another payload that arrives meanwhile may be
// refused as a conflict although the action never comes to exist. After
// the holder ended, nothing holds the key.
func TestLinearizableConflictWhileAHolderLeftNothing(t *testing.T) {
	taken := model.Outcome{Kind: model.Taken, Status: 409}
	tests := []struct {
		name string
		ops  []model.Op
		want porcupine.CheckResult
	}{
		{"conflict while the taken call ran", []model.Op{
			linCall(1, 0, 0, 10, taken), linCall(0, 0, 5, 8, linConflict),
		}, porcupine.Ok},
		{"conflict after the taken call ended", []model.Op{
			linCall(1, 0, 0, 10, taken), linCall(0, 0, 20, 30, linConflict),
		}, porcupine.Illegal},
		{"conflict beside an equal payload's taken call", []model.Op{
			linCall(0, 0, 0, 10, taken), linCall(0, 1, 5, 8, linConflict),
		}, porcupine.Illegal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := linear.Linearizable(model.DefaultContract(), tt.ops, time.Second); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// porcupine judges overlapping calls by the same policy as the walk.
func TestLinearizableChangedReplayed(t *testing.T) {
	tests := []struct {
		name     string
		replayed bool
		ops      []model.Op
		want     porcupine.CheckResult
	}{
		{"overlapping changed payloads both answered the one id", true, []model.Op{
			linCall(0, 0, 0, 10, linOK("7")), linCall(1, 0, 5, 15, linReplayed("7")),
		}, porcupine.Ok},
		{"the same under the default policy", false, []model.Op{
			linCall(0, 0, 0, 10, linOK("7")), linCall(1, 0, 5, 15, linReplayed("7")),
		}, porcupine.Illegal},
		{"overlapping changed payloads, one refused", true, []model.Op{
			linCall(0, 0, 0, 10, linOK("7")), linCall(1, 0, 5, 15, linConflict),
		}, porcupine.Illegal},
		{"overlapping changed payloads answered two ids", true, []model.Op{
			linCall(0, 0, 0, 10, linOK("7")), linCall(1, 0, 5, 15, linOK("8")),
		}, porcupine.Illegal},
		{"a lost call, then a changed payload answered its id", true, []model.Op{
			linCall(0, 0, 0, 10, linLost), linCall(1, 0, 5, 15, linOK("7")), linCall(2, 0, 20, 30, linReplayed("7")),
		}, porcupine.Ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := model.DefaultContract()
			c.ChangedReplayed = tt.replayed
			if got, _ := linear.Linearizable(c, tt.ops, time.Second); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
