// Package linear is the linearizability check's search: porcupine's model
// of one action under the contract's reference model, and whether the
// calls of that action can be put in one serial order that real time
// allows and under which the model allows every answer. It judges one
// action's calls, never partitions a history, and names no check: package
// checks decides what an Illegal or Unknown result means (IDEM-013, or a
// more specific mistake).
package linear

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// linInput is what porcupine passes to the model as an operation's input.
type linInput struct {
	op model.Op
	// body is the first body among the calls that is equivalent to
	// op.Body: equivalent payloads share one body, so the model compares
	// bodies byte for byte instead of parsing JSON at every step.
	body []byte
	// overlapped: another call of the action was in flight at the same time,
	// by real time, so this one may answer in_flight.
	overlapped bool
	// heldOtherwise: one of those calls sent a payload not equivalent to
	// this one's (the model's Input.HeldOtherwise).
	heldOtherwise bool
}

// linState is one state of the action for porcupine. variant remembers
// which payload variant created it, for the visualisation only: Equal and
// Hash ignore it.
type linState struct {
	s       reference.State
	variant int
}

// Linearizable reports whether the calls of ONE action can be put in one serial order,
// consistent with real time, under which the reference model allows every answer.
// Calls whose outcome is unknown (Out.Kind Unknown or Other) may take effect at any time after
// they started: they get an open-ended return time. An in_flight answer is allowed only for a
// call that overlapped another call of the same action (the model's Input.Overlapped); overlap
// is computed from real time, with closed intervals as porcupine uses them (a call that ends
// at the instant another starts overlaps it), and an unknown call overlaps everything after
// its start.
//
// The caller partitions the history per action and passes one action's calls; nothing here
// partitions again, so calls of two actions passed together are judged as one action.
// Keyless calls (Call.NoKey) are not part of any action: the caller filters them out, and they
// are ignored here too. An answer the contract does not allow in any state (Other, invalid
// with a key) makes every history Illegal.
//
// An in_flight answer to an overlapping call is allowed in every state and changes none, so
// it fits into any serial order: such calls are left out of the search (each would double it)
// and appear in the LinearizationInfo as annotations on their client's row.
//
// timeout bounds the search; on timeout the result is porcupine.Unknown. A timeout <= 0 means
// no bound. The LinearizationInfo, with this package's model, feeds porcupine.Visualize (the
// tests draw timelines with it to pin the model's descriptions).
func Linearizable(c model.Contract, ops []model.Op, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	if timeout < 0 {
		timeout = 0 // porcupine reads 0 as "no bound"
	}
	history, aside := operations(c, ops)
	result, info := porcupine.CheckOperationsVerbose(linModel(c), history, timeout)
	info.AddAnnotations(aside)
	return result, info
}

// operations turns the keyed calls of one action into porcupine operations,
// each call its own client (ClientId is its index among the keyed calls),
// and the in_flight answers to overlapping calls into annotations.
func operations(c model.Contract, ops []model.Op) ([]porcupine.Operation, []porcupine.Annotation) {
	keyed := make([]model.Op, 0, len(ops))
	for _, op := range ops {
		if !op.Call.NoKey {
			keyed = append(keyed, op)
		}
	}
	var bodies [][]byte
	shared := func(body []byte) []byte {
		for _, b := range bodies {
			if payloads.Equivalent(c, b, body) {
				return b
			}
		}
		bodies = append(bodies, body)
		return body
	}
	var history []porcupine.Operation
	var aside []porcupine.Annotation
	for i, op := range keyed {
		overlapped, heldOtherwise := false, false
		for j, other := range keyed {
			if j != i && model.Overlap(op.AtWork(), other.AtWork()) {
				overlapped = true
				heldOtherwise = heldOtherwise || reference.HeldAndLeftNothing(other) && !payloads.Equivalent(c, op.Body, other.Body)
			}
		}
		if overlapped && op.Out.Kind == model.InFlight {
			aside = append(aside, porcupine.Annotation{
				ClientId:        i,
				Start:           op.Start,
				End:             op.Until(),
				Description:     op.String(),
				Details:         describeMetadata(op) + "; in_flight while another call ran: fits anywhere",
				BackgroundColor: "#e0e0e0",
			})
			continue
		}
		history = append(history, porcupine.Operation{
			ClientId: i,
			Input:    linInput{op: op, body: shared(op.Body), overlapped: overlapped, heldOtherwise: heldOtherwise},
			Call:     op.Start,
			Output:   op.Out,
			// porcupine only sorts times (its visualisation ranks them), so an
			// open end of math.MaxInt64 is safe.
			Return:   op.Until(),
			Metadata: op,
		})
	}
	return history, aside
}

// linModel is the reference model as porcupine sees it: nondeterministic,
// because an unknown call may or may not have created the action.
func linModel(c model.Contract) porcupine.Model {
	// Inputs carry one shared body per equivalence class (see linInput),
	// so under the contract's equivalence two bodies are equivalent
	// exactly when their bytes are equal.
	judge := c
	judge.Equivalence = model.EquivalenceBytes
	nm := porcupine.NondeterministicModel{
		Init: func() []any { return []any{linState{}} },
		Step: func(state, input, output any) []any {
			return linStep(judge, state.(linState), input.(linInput), output.(model.Outcome))
		},
		// Equivalent payloads are one state (their shared bodies are
		// equal), so a re-encoded retry does not split the search.
		Equal: func(a, b any) bool { return linEqual(a.(linState), b.(linState)) },
		Hash:  func(state any) uint64 { return linHash(state.(linState)) },
		DescribeOperation: func(input, output any) string {
			op := input.(linInput).op
			op.Out = output.(model.Outcome)
			return op.String()
		},
		DescribeState: func(state any) string { return state.(linState).describe() },
		DescribeOperationMetadata: func(meta any) string {
			op, ok := meta.(model.Op)
			if !ok {
				return ""
			}
			return describeMetadata(op)
		},
	}
	return nm.ToModel()
}

// linStep is the states the contract allows after answering in with out
// in st, none when it allows no such answer; a state that creates the
// action remembers the variant that created it.
func linStep(judge model.Contract, st linState, in linInput, out model.Outcome) []any {
	rule, next := reference.Judge(judge, st.s, reference.Input{Body: in.body, Broken: in.op.Call.Broken > 0, Overlapped: in.overlapped, HeldOtherwise: in.heldOtherwise}, out)
	if rule != reference.RuleHolds {
		return nil
	}
	states := make([]any, len(next))
	for i, s := range next {
		variant := st.variant
		if s.Present && !st.s.Present {
			variant = in.op.Call.Variant
		}
		states[i] = linState{s: s, variant: variant}
	}
	return states
}

// linEqual tells two states apart by what the contract sees of them, not
// by the variant that created the action.
func linEqual(a, b linState) bool {
	x, y := a.s, b.s
	return x.Present == y.Present && x.ID == y.ID && x.Refused == y.Refused && bytes.Equal(x.Body, y.Body)
}

// linHash hashes what linEqual compares.
func linHash(st linState) uint64 {
	s := st.s
	h := fnv.New64a()
	if s.Present {
		h.Write([]byte{1})
	}
	h.Write([]byte(s.ID))
	h.Write([]byte{0, byte(s.Refused), byte(s.Refused >> 8)})
	h.Write(s.Body)
	return h.Sum64()
}

// describe is the state as porcupine's visualisation shows it.
func (st linState) describe() string {
	switch {
	case !st.s.Present && st.s.Refused != 0:
		return fmt.Sprintf("absent, refused %d", st.s.Refused)
	case !st.s.Present:
		return "absent"
	case st.s.ID == "":
		return fmt.Sprintf("created(v%d, id not yet seen)", st.variant)
	default:
		return fmt.Sprintf("created(v%d, id %s)", st.variant, model.ShowID(st.s.ID))
	}
}

// describeMetadata is the detail shown when hovering over a call.
func describeMetadata(op model.Op) string {
	if op.EffectUnknown() {
		// The open end hides when the client gave up; keep it visible.
		return fmt.Sprintf("step %d, gave up at %d, body %s", op.Step, op.End, op.Body)
	}
	return fmt.Sprintf("step %d, body %s", op.Step, op.Body)
}
