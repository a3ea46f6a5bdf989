package usable

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// refusedInput reports a call whose input, not its action's state, was
// refused: a keyed call with another payload variant or encoding, or a
// key of another shape, answered 4xx, neither as a conflict nor as in
// flight (nor as a unique value taken: that refusal is the action's).
// When the base payload was
// answered ok, the service would take the action but not this input of it:
// the contract (a missing or wrong field rule, an encoding the service does
// not read) is what is wrong, not the service's idempotency.
func refusedInput(op model.Op) bool {
	// A broken call is refused on purpose (see BrokenAccepted).
	// So is a call with another action's unique values (answers.taken).
	return (op.Call.Variant > 0 || op.Call.Encoding > 0 || identifiers.KeyShape(op.Call.Key) != 0) && !op.Call.NoKey && op.Call.Broken == 0 &&
		op.Call.UniqueOf == "" &&
		op.Out.Status >= 400 && op.Out.Status < 500 &&
		op.Out.Kind != model.Conflict && op.Out.Kind != model.InFlight && !op.Out.ServerError() &&
		op.Out.Kind != model.Taken
}

// replayDue reports whether, under changed_payload: replayed, op's answer
// had to be its action's original one: an earlier call of the action was
// answered ok before op began. A refusal then is the service's answer to
// a used key, which the model judges (IDEM-008), not a refused input.
func replayDue(c model.Contract, h model.History, op model.Op) bool {
	if !c.ChangedReplayed || op.Call.NoKey {
		return false
	}
	a := c.ActionOf(op.Call)
	return slices.ContainsFunc(h.Ops, func(o model.Op) bool {
		return !o.Call.NoKey && o.Out.Kind == model.OK && o.End < op.Start && c.ActionOf(o.Call) == a
	})
}

// encodings says in words what each payload encoding changes (see
// payloads.Render).
var encodings = [payloads.NumEncodings]string{
	"compact, keys sorted",
	"spaces around every colon and comma",
	"members in reverse key order",
	"the first character of every string \\u-escaped",
	"a member per line, fractions in exponent form (0.5 as 5e-1), integers as 3.0 only where numbers: loose or a number rule allows",
}

// refusal is the contract error of a run in which the service refused a
// generated input although it took the base payload. Which input it
// refused is found by asking again: the refused variant alone, in the
// plain encoding and without noise, in a namespace of its own. If the
// service takes that, the encoding (or the noise) was refused, else the
// variant's value of the field it changes. A failure found in the same run
// may follow from the refusal, so the run reports the refusal only.
func (pr Probe) refusal(ctx context.Context) error {
	op := *pr.Clues.refused
	c := pr.Contract
	call := op.Call
	var also string
	if n := pr.Bugs; n > 0 {
		also = fmt.Sprintf(" (the run also found %d failure(s), which may follow from the refusal: fix the contract and run again)", n)
	}
	// A key of another shape first: the API's keys may have a format.
	if err := pr.keyShapeRefusal(ctx, op, also); err != nil {
		return err
	}
	call.Key = model.PlainKey(call.Key)
	answered := fmt.Sprintf("it answered %d %s", op.Out.Status, model.Excerpt(bytes.TrimSpace(op.Out.Body), 200))
	if call.Encoding > 0 || call.Noise != model.NoiseNone {
		plain := model.Call{Tenant: call.Tenant, Key: call.Key, Variant: call.Variant}
		if pr.accepts(ctx, plain) {
			if call.Encoding == 0 {
				return fmt.Errorf("%w: request noise: the service refused a call with +%s noise that it takes without: %s; "+
					"if that noise is part of an action's identity for the service, list it under identity_noise%s",
					contract.ErrContract, call.Noise, answered, also)
			}
			how := encodings[call.Encoding]
			if pr.HTTP.Body == client.BodyForm {
				how = "a form body with its fields in reverse order"
			}
			return fmt.Errorf("%w: the service refused re-encoding %d of a payload it takes as written (%s): %s; its payload was %q. "+
				"Any JSON document of the same value must be accepted; if this one is refused for a number, leave out numbers: loose "+
				"and give the field an int rule instead of a number rule%s",
				contract.ErrContract, call.Encoding, how, answered, model.Excerpt(op.Body, 200).String(), also)
		}
	}
	if call.Variant == 0 {
		return fmt.Errorf("%w: the service refused the base payload in encoding %d (%s), and after the run in the plain one too, "+
			"though it took it before: %s; its payload was %q%s", contract.ErrContract, call.Encoding, encodings[call.Encoding], answered, model.Excerpt(op.Body, 200).String(), also)
	}
	ptr := payloads.ChangedField(c, call.Variant)
	from, _ := payloads.Pointer(payloads.Render(c, "", 0, 0), ptr)
	to, _ := payloads.Pointer(payloads.Render(c, "", call.Variant, 0), ptr)
	if rule, ok := c.Fields[ptr]; ok {
		return fmt.Errorf("%w: payload_rules.%s: the service refused variant %d, which changes the field under its rule %s to %q (from %q): %s; "+
			"narrow the rule to the values the service takes%s", contract.ErrContract, ptr, call.Variant, describeRule(rule), to, from, answered, also)
	}
	return fmt.Errorf("%w: payload_rules: the service refused variant %d of field %s (%q instead of %q): %s; "+
		"give the field its rule under payload_rules (fixed, enum: [...], int: {min, max}, number: {min, max} or max_len) so that variants stay valid%s",
		contract.ErrContract, call.Variant, ptr, to, from, answered, also)
}

// accepts reports whether the service answers call, alone in a namespace
// of its own, with anything but a refusal of its input.
func (pr Probe) accepts(ctx context.Context, call model.Call) bool {
	h, err := pr.Try(ctx, model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{call}}}})
	if err != nil || len(h.Ops) != 1 {
		return false
	}
	out := h.Ops[0].Out
	return out.Status < 400 || out.Status >= 500 || out.ServerError()
}

// describeRule is a field rule as the contract file writes it.
func describeRule(r model.FieldRule) string {
	var parts []string
	switch {
	case r.Fixed:
		return "fixed"
	case r.Enum != nil:
		parts = append(parts, fmt.Sprintf("enum: %v", r.Enum))
	case r.Int != nil:
		parts = append(parts, fmt.Sprintf("int: {min: %g, max: %g}", r.Int.Min, r.Int.Max))
	case r.Number != nil:
		parts = append(parts, fmt.Sprintf("number: {min: %g, max: %g}", r.Number.Min, r.Number.Max))
	}
	if r.MaxLen > 0 {
		parts = append(parts, fmt.Sprintf("max_len: %d", r.MaxLen))
	}
	if r.Required {
		parts = append(parts, "required: true")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// BrokenAccepted notes each payload rule the service did not enforce:
// a call that broke it was answered ok as the first call of its action
// (a later one may be the service's own mistake, a changed payload
// accepted). The rule is the contract's claim, not the service's
// idempotency: the verdict still holds (an accepted call is judged as
// any other), but the refused-then-fixed sequences of that rule test
// nothing.
func BrokenAccepted(c model.Contract, h model.History) []string {
	var notes []string
	seen := map[model.Action]bool{}
	for _, op := range h.Ops {
		a := c.ActionOf(op.Call)
		first := !seen[a] && !op.Call.NoKey
		seen[a] = true
		if !first || op.Call.Broken == 0 || op.Out.Kind != model.OK {
			continue
		}
		b, ok := payloads.BreakageOf(c, op.Call.Broken)
		if !ok {
			continue
		}
		notes = append(notes, fmt.Sprintf("payload_rules.%s: the service accepted a call that breaks the rule %s (%s): it answered %d. "+
			"idemstress sends such calls to check that a refusal leaves the key unused (refusals:); "+
			"if the service takes such values, widen the rule to what it takes, or set refusals: untested",
			b.Ptr, describeRule(c.Fields[b.Ptr]), b, op.Out.Status))
	}
	return notes
}
