package checks

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/idemstress/idemstress/model"
)

// openEnd is the return time of a call nobody heard back from: it may take
// effect at any moment after it started, so its interval never closes.
// porcupine only sorts timestamps and its visualisation maps them to ranks,
// so the largest int64 is safe.
const openEnd = math.MaxInt64

// timelineBound bounds the search behind a timeline: past it, the timeline
// shows the longest serial orders found so far.
const timelineBound = 10 * time.Second

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
}

// linState is one state of the action for porcupine. variant remembers
// which payload variant created it, for the visualisation only: Equal and
// Hash ignore it.
type linState struct {
	s       model.State
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
// no bound. The LinearizationInfo feeds porcupine.Visualize with this package's model (see
// WriteTimeline).
func Linearizable(c model.Contract, ops []model.Op, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	if timeout < 0 {
		timeout = 0 // porcupine reads 0 as "no bound"
	}
	history, aside := operations(c, ops)
	result, info := porcupine.CheckOperationsVerbose(linModel(c), history, timeout)
	info.AddAnnotations(aside)
	return result, info
}

// WriteTimeline writes porcupine's HTML visualisation of one action's calls:
// each call on its own row, and the longest serial orders the model accepts,
// with the state after every step. The search behind it is bounded (10s);
// past the bound the timeline shows what was found so far.
func WriteTimeline(w io.Writer, c model.Contract, ops []model.Op) error {
	_, info := Linearizable(c, ops, timelineBound)
	if err := porcupine.Visualize(linModel(c), info, w); err != nil {
		return fmt.Errorf("timeline: writing the visualisation of %d calls: %w", len(ops), err)
	}
	return nil
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
	ends := make([]int64, len(keyed))
	for i, op := range keyed {
		ends[i] = returnTime(op)
	}
	var bodies [][]byte
	shared := func(body []byte) []byte {
		for _, b := range bodies {
			if c.Equivalent(b, body) {
				return b
			}
		}
		bodies = append(bodies, body)
		return body
	}
	var history []porcupine.Operation
	var aside []porcupine.Annotation
	for i, op := range keyed {
		overlapped := false
		for j, other := range keyed {
			if j != i && op.Start <= ends[j] && other.Start <= ends[i] {
				overlapped = true
				break
			}
		}
		if overlapped && op.Out.Kind == model.InFlight {
			aside = append(aside, porcupine.Annotation{
				ClientId:        i,
				Start:           op.Start,
				End:             ends[i],
				Description:     describeOp(op, op.Out),
				Details:         describeMetadata(op) + "; in_flight while another call ran: fits anywhere",
				BackgroundColor: "#e0e0e0",
			})
			continue
		}
		history = append(history, porcupine.Operation{
			ClientId: i,
			Input:    linInput{op: op, body: shared(op.Body), overlapped: overlapped},
			Call:     op.Start,
			Output:   op.Out,
			Return:   ends[i],
			Metadata: op,
		})
	}
	return history, aside
}

// returnTime is when a call's effect must have happened by: its end, or
// never for a call whose effect is unknown. A clock that ran backwards
// (End before Start) is read as an instant call, since porcupine needs
// call <= return.
func returnTime(op model.Op) int64 {
	if op.Out.Kind == model.Unknown || op.Out.Kind == model.Other {
		return openEnd
	}
	return max(op.End, op.Start)
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
			st, in, out := state.(linState), input.(linInput), output.(model.Outcome)
			rule, next := judge.Judge(st.s, model.Input{Body: in.body, Overlapped: in.overlapped}, out)
			if rule != model.RuleHolds {
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
		},
		// Equivalent payloads are one state (their shared bodies are
		// equal), so a re-encoded retry does not split the search.
		Equal: func(a, b any) bool {
			x, y := a.(linState).s, b.(linState).s
			return x.Present == y.Present && x.ID == y.ID && bytes.Equal(x.Body, y.Body)
		},
		Hash: func(state any) uint64 {
			s := state.(linState).s
			h := fnv.New64a()
			if s.Present {
				h.Write([]byte{1})
			}
			h.Write([]byte(s.ID))
			h.Write([]byte{0})
			h.Write(s.Body)
			return h.Sum64()
		},
		DescribeOperation: func(input, output any) string {
			return describeOp(input.(linInput).op, output.(model.Outcome))
		},
		DescribeState: func(state any) string {
			st := state.(linState)
			switch {
			case !st.s.Present:
				return "absent"
			case st.s.ID == "":
				return fmt.Sprintf("created(v%d, id not yet seen)", st.variant)
			default:
				return fmt.Sprintf("created(v%d, id %s)", st.variant, st.s.ID)
			}
		},
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

// describeMetadata is the detail shown when hovering over a call.
func describeMetadata(op model.Op) string {
	if returnTime(op) == openEnd {
		// The open end hides when the client gave up; keep it visible.
		return fmt.Sprintf("step %d, gave up at %d, body %s", op.Step, op.End, op.Body)
	}
	return fmt.Sprintf("step %d, body %s", op.Step, op.Body)
}

// describeOp renders one call for the timeline, e.g. "A/k1 v0 → ok 201 id 7".
func describeOp(op model.Op, out model.Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s v%d", op.Call.Tenant, op.Call.Key, op.Call.Variant)
	if op.Call.Encoding != 0 {
		fmt.Fprintf(&b, " enc %d", op.Call.Encoding)
	}
	if op.Call.Fault != model.FaultNone {
		fmt.Fprintf(&b, " fault %s", op.Call.Fault)
	}
	fmt.Fprintf(&b, " → %s", out.Kind)
	if out.Status != 0 {
		fmt.Fprintf(&b, " %d", out.Status)
	}
	if out.ID != "" {
		fmt.Fprintf(&b, " id %s", out.ID)
	}
	if out.Err != "" {
		fmt.Fprintf(&b, " (%s)", out.Err)
	}
	return b.String()
}
