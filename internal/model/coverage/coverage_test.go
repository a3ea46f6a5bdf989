package coverage_test

import (
	"maps"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// covOp is a call of the given tenant and key with body b, in flight from
// start to end, answered 201 (or with an error when err is set).
func covOp(tenant, key string, b []byte, start, end int64) model.Op {
	return model.Op{Call: model.Call{Tenant: tenant, Key: key}, Body: b, Start: start, End: end, Out: ok("7")}
}

func TestExercised(t *testing.T) {
	exact := model.DefaultContract()
	trim := model.DefaultContract()
	trim.KeyCompare = model.KeyCompareTrim
	global := model.DefaultContract()
	global.KeyScope = model.KeyScopeGlobal
	bytesEq := model.DefaultContract()
	bytesEq.Equivalence = model.EquivalenceBytes
	keyOptional := model.DefaultContract()
	keyOptional.KeylessCreates = true
	lost := covOp("A", "k1", p, 20, 30)
	lost.Out = model.Outcome{Kind: model.Unknown, Err: "timeout"}
	keyless := covOp("A", "", p, 20, 30)
	keyless.Call.NoKey = true
	tests := []struct {
		name     string
		contract model.Contract
		keyInTag bool
		history  model.History
		faults   []model.FaultEvent
		want     coverage.Coverage
	}{
		{"one call", exact, false, model.Calls(covOp("A", "k1", p, 0, 10)),
			nil, coverage.Coverage{coverage.Called: 1}},
		{"a retry after the first call ended", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.SequentialRetry: 1}},
		{"a retry nobody heard back from is not judged", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), lost),
			nil, coverage.Coverage{coverage.Called: 2}},
		{"a re-encoded retry", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1", pSpaced, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.SequentialRetry: 1, coverage.Reencoding: 1}},
		{"a re-encoding under byte equivalence is a changed payload", bytesEq, false,
			model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1", pSpaced, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.ChangedPayload: 1, coverage.Reencoding: 1}},
		{"a changed payload", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1", pOther, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.ChangedPayload: 1}},
		{"a changed payload at once", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1", pOther, 0, 10)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.ChangedPayload: 1, coverage.Burst: 2}},
		{"a burst of two", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1", p, 5, 15)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.Burst: 2}},
		{"another tenant's key", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("B", "k1", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.OtherTenantSameKey: 1}},
		{"another tenant, another key", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("B", "k2", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2}},
		{"one tenant", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k2", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2}},
		{"another tenant's key under a global scope is a retry", global, false,
			model.Calls(covOp("A", "k1", p, 0, 10), covOp("B", "k1", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.SequentialRetry: 1}},
		{"another tenant's key inside a tag", exact, true, model.Calls(covOp("A", "k1", p, 0, 10), covOp("B", "k1", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2}},
		{"a key apart by white space", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1s", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.FoldedKey: 1}},
		{"a key apart by white space that the contract trims is a retry", trim, false,
			model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1s", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.SequentialRetry: 1}},
		{"a key apart by case under trim", trim, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1c", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.FoldedKey: 1}},
		{"a key apart by white space inside a tag", exact, true, model.Calls(covOp("A", "k1", p, 0, 10), covOp("A", "k1s", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2}},
		{"a key apart by white space of another tenant", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), covOp("B", "k1s", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2}},
		{"a keyless call", exact, false, model.Calls(keyless), nil, coverage.Coverage{coverage.Called: 1, coverage.Keyless: 1}},
		{"a keyless call is no retry", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), keyless),
			nil, coverage.Coverage{coverage.Called: 2, coverage.Keyless: 1}},
		{"a keyless create under key_required: false", keyOptional, false, model.Calls(keyless, keyless),
			nil, coverage.Coverage{coverage.Called: 2, coverage.Keyless: 2, coverage.KeylessCreate: 2}},
		{"a fixed call after a refused one", exact, false, model.Calls(broken(covOp("A", "k1", pOther, 0, 10), 400), covOp("A", "k1", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2, coverage.RefusedThenFixed: 1}},
		{"a broken call accepted is not refused", exact, false, model.Calls(broken(covOp("A", "k1", pOther, 0, 10), 201), covOp("A", "k1", p, 20, 30)),
			nil, coverage.Coverage{coverage.Called: 2}},
		{"a broken call after a valid one is no changed payload", exact, false, model.Calls(covOp("A", "k1", p, 0, 10), broken(covOp("A", "k1", pOther, 20, 30), 400)),
			nil, coverage.Coverage{coverage.Called: 2}},
		{"faults count when they fired", exact, false, model.Calls(covOp("A", "k1", p, 0, 10)),
			[]model.FaultEvent{{Kind: model.FaultCrash, Fired: true}, {Kind: model.FaultRestart, Fired: true}, {Kind: model.FaultLoseReply}},
			coverage.Coverage{coverage.Called: 1, "crash": 1, "restart": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.history
			h.Faults = tc.faults
			got := coverage.Exercised(coverage.Exercise{Contract: tc.contract, KeyInTag: tc.keyInTag, History: h})
			if !maps.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCoverageAddAndOrder(t *testing.T) {
	c := coverage.Coverage{coverage.Burst: 1, "crash": 2}
	c.Add(coverage.Coverage{coverage.Burst: 2, "lose-reply": 1})
	if !maps.Equal(c, coverage.Coverage{coverage.Burst: 3, "crash": 2, "lose-reply": 1}) {
		t.Fatalf("sum: %v", c)
	}
	got := c.Transitions()
	if n := len(coverage.CallTransitions); len(got) != n+2 || got[n] != "crash" || got[n+1] != "lose-reply" || got[0] != coverage.Called {
		t.Fatalf("order: %v", got)
	}
	// A planned crash brings its follow-up, the retry the recovery time decides.
	zero := coverage.NewCoverage([]model.Fault{model.FaultCrash})
	if len(zero) != len(coverage.CallTransitions)+2 || zero["crash"] != 0 || zero[coverage.RecoveredRetry] != 0 || zero.Transitions()[len(coverage.CallTransitions)] != "crash" {
		t.Fatalf("new: %v", zero)
	}
	if coverage.OtherTenantSameKey.Label() != "other tenant same key" || coverage.FaultFired(model.FaultCrash).Label() != "crash" {
		t.Fatal("labels")
	}
}

// BenchmarkExercised: the largest plan the default world draws, 8 bursts
// of 16 calls over 3 tenants and 4 keys, counted once per execution.
func BenchmarkExercised(b *testing.B) {
	c := model.DefaultContract()
	var h model.History
	for step := range 8 {
		for j := range 16 {
			tenant, key := string(rune('A'+j%3)), []string{"k1", "k2", "k1s", "k3"}[j%4]
			body := payloads.Render(c, "", j%2, j%3)
			h.Ops = append(h.Ops, covOp(tenant, key, body, int64(step*100), int64(step*100+50)))
		}
	}
	for b.Loop() {
		coverage.Exercised(coverage.Exercise{Contract: c, History: h})
	}
}

// broken makes op a broken call answered status (refused when 4xx).
func broken(op model.Op, status int) model.Op {
	op.Call.Broken = 1
	op.Out = refusal(status)
	if status < 300 {
		op.Out = model.Outcome{Kind: model.OK, Status: status, ID: "7"}
	}
	return op
}
