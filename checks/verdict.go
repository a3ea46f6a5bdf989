package checks

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/idemstress/idemstress/internal/effects"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// Verdict is what a run concludes. One vocabulary from the run to the
// JSON and the table.
type Verdict string

const (
	// Pass: no violation in any plan, and every planned fault fired.
	Pass Verdict = "pass"
	// Fail: violations were found.
	Fail Verdict = "fail"
	// Inconclusive: nothing was proven either way; the run stopped (target
	// or database gone, interrupted) or a planned fault did not fire.
	Inconclusive Verdict = "inconclusive"
)

// Input is everything a verdict is made from: the contract, the declared
// effects, the plan's namespace, what the calls got back, and the rows.
type Input struct {
	Contract model.Contract
	Effects  []effect.Effect
	Sinks    []effect.Sink
	NS       model.Namespace
	History  model.History
	Rows     model.Snapshot
}

// actionInfo is what the history says about one action.
type actionInfo struct {
	ops []model.Op
	// faulted says, for each of ops, that a fault touched the call.
	faulted []bool
	// Promised is what the answers promise of the action's effects (the
	// ok IDs, whether it may exist, the payloads that may have won): what
	// the row and sink checks need, filled in by judgeAction.
	effects.Promised
}

// Evaluate judges one plan's execution: the answers against the reference
// model, and the committed rows against the answers. The result is sorted,
// primary finding first.
func Evaluate(in Input) []Violation {
	actions, keyless, vs := byAction(in)
	for _, op := range keyless {
		findings, _ := reference.Walk(in.Contract, []model.Op{op})
		for _, f := range findings {
			vs = append(vs, ruleViolation(in.Contract, f.Rule, op, model.Action{Tenant: op.Call.Tenant}))
		}
	}
	for a, info := range actions {
		vs = append(vs, judgeAction(in, a, info)...)
	}
	if in.Contract.KeylessCreates {
		vs = append(vs, keylessAnswers(keyless, actions)...)
	}
	vs = append(vs, uniqueChecks(in.Contract, in.History)...)
	vs = append(vs, exitChecks(in.Contract, in.History)...)
	vs = append(vs, effectChecks(in, actions, keyless)...)
	Sort(vs)
	return vs
}

// byAction groups the history's calls by the action they name, each with
// whether a fault may explain a missing answer. A keyless call belongs to
// no action: it is listed apart, and its answer checked here.
func byAction(in Input) (actions map[model.Action]*actionInfo, keyless []model.Op, vs []Violation) {
	actions = map[model.Action]*actionInfo{}
	for i, op := range in.History.Ops {
		// A call a fault of the history touched may go unanswered.
		ev, touched := in.History.TouchedBy(i)
		faulted := touched && mayExplainNoAnswer(ev, op) || op.Call.Fault != model.FaultNone
		if touched && faultkind.Transient(ev.Kind) && !ev.Fired {
			// A db-error (dep-error) that did not fire failed nothing: the call's
			// server error, if any, is the service's own (IDEM-008), and
			// its retries' answers no replay of an error it caused.
			op.Call.Fault = model.FaultNone
		}
		if op.Call.NoKey {
			vs = append(vs, answerChecks(in.Contract, op, faulted)...)
			keyless = append(keyless, op)
			continue
		}
		a := in.Contract.ActionOf(op.Call)
		info := actions[a]
		if info == nil {
			info = &actionInfo{}
			actions[a] = info
		}
		info.ops = append(info.ops, op)
		info.faulted = append(info.faulted, faulted)
	}
	return actions, keyless, vs
}

// judgeAction checks one action's answers, alone and in the order they
// ran (porcupine's search when calls overlapped), and fills in info what
// the row checks need: the ok IDs, whether the action may exist, and the
// payloads that may have created it.
func judgeAction(in Input, a model.Action, info *actionInfo) []Violation {
	vs, replayed := errorReplays(in.Contract, a, info.ops)
	for i, op := range info.ops {
		if !replayed[i] {
			vs = append(vs, answerChecks(in.Contract, op, info.faulted[i])...)
		}
	}
	vs = append(vs, stuckChecks(in.Contract, a, info.ops)...)
	var states []reference.State
	if overlapping(info.ops) {
		// Calls that ran at the same time have no order of their own:
		// porcupine searches every order real time allows.
		vs = append(vs, linearizability(in, a, info.ops)...)
		states = okStates(in.Contract, info.ops)
	} else {
		// In the order they ran: a burst's calls are listed in plan
		// order, and a fast target may answer one before the next starts.
		ran := slices.SortedStableFunc(slices.Values(info.ops), func(x, y model.Op) int { return cmp.Compare(x.Start, y.Start) })
		var findings []reference.BadAnswer
		findings, states = reference.Walk(in.Contract, ran)
		for _, f := range findings {
			op := ran[f.Op]
			if f.Rule == reference.RuleWrongStatus {
				if v, leaked := leakedConflict(in, a, op, ""); leaked {
					vs = append(vs, v)
					continue
				}
			}
			vs = append(vs, ruleViolation(in.Contract, f.Rule, op, a))
		}
	}
	for _, op := range info.ops {
		switch op.Out.Kind {
		case model.OK:
			info.OKIDs = append(info.OKIDs, op.Out.ID)
			info.MayExist = true
		case model.Unknown, model.Other:
			// A broken call's refusal is no effect, whatever its status.
			info.MayExist = info.MayExist || !(op.Call.Broken > 0 && reference.Refused(op.Out))
		}
	}
	info.Winners = winners(states)
	return vs
}

// leakedConflict explains a refusal the action itself cannot explain by
// another action the target took the call for: a conflict after that
// action was created, or an in_flight while one of its calls ran. The
// other action is another tenant's with the same key (the target looked
// the key up, or locked it, without its tenant) or one whose key the
// contract tells apart from this one's only by white space, case or form
// (the target folded keys). more is added to the detail.
func leakedConflict(in Input, a model.Action, op model.Op, more string) (Violation, bool) {
	if op.Out.Kind == model.InFlight && ownCallRan(in, a, op) {
		return Violation{}, false // its own action explains it
	}
	// The latest such action: of several that could explain the refusal,
	// the one the target saw last is the one it most likely matched.
	for i := len(in.History.Ops) - 1; i >= 0; i-- {
		other := in.History.Ops[i]
		check, what := confusion(in.Contract, op.Call, other.Call)
		if check == "" {
			continue
		}
		created := other.Start < op.Start && (other.Out.Kind == model.OK || other.Out.Kind == model.Unknown)
		running := model.Overlap(op.AtWork(), other.AtWork())
		if op.Out.Kind == model.Conflict && created || op.Out.Kind == model.InFlight && running {
			return violation(check, a, "a call was judged against "+what,
				fmt.Sprintf("call %s got %s, as if it were a call of action %s%s", op.Call, op.Out, in.Contract.ActionOf(other.Call), more)), true
		}
	}
	return Violation{}, false
}

// ownCallRan reports whether another call of op's own action may have been
// at work at the same time, which is all an in_flight answer needs.
func ownCallRan(in Input, a model.Action, op model.Op) bool {
	for _, own := range in.History.Ops {
		self := own.Start == op.Start && own.End == op.End && own.Call == op.Call
		if !self && !own.Call.NoKey && in.Contract.ActionOf(own.Call) == a && model.Overlap(op.AtWork(), own.AtWork()) {
			return true
		}
	}
	return false
}

// confusion says which check it is when a target takes a call for other's
// action, and what that action is to the call: another tenant's with the
// same key, or the same tenant's with a key that differs only by white
// space, case or form. It is "" for the same action, or an unrelated one.
func confusion(c model.Contract, call, other model.Call) (ID, string) {
	if call.NoKey || other.NoKey || c.ActionOf(call) == c.ActionOf(other) {
		return "", ""
	}
	switch {
	case c.KeyScope != model.KeyScopeGlobal && call.Key == other.Key && call.Tenant != other.Tenant:
		return TenantLeak, "another tenant's action with the same key"
	case model.PlainKey(call.Key) == model.PlainKey(other.Key) && c.ActionOf(call).Tenant == c.ActionOf(other).Tenant:
		return KeysFolded, "the action of a key that differs only by white space, case or form"
	}
	return "", ""
}

// mayExplainNoAnswer reports whether fault ev, which touched op, may be
// why op got no answer. A db-stall holds a burst's requests only until it
// releases them: a call that then waited longer than it was held had the
// rest of its timeout to be answered, so the hang is the service's (a
// request that joined another in the process and never got an answer
// looks to the nemesis like one it could not see, and it releases the
// lock after its wait, well before the call timeout).
func mayExplainNoAnswer(ev model.FaultEvent, op model.Op) bool {
	if ev.Kind != model.FaultDBStall {
		return true
	}
	return op.End-ev.End < ev.End-op.Start
}

// answerChecks are the checks one answer fails by itself. Their action is
// the call's as the contract names it (key scope, folded keys), like every
// other violation's. faulted says a fault of the history touched the call
// (one it carried, or a crash that left its replica down): its missing
// answer is the fault's doing.
func answerChecks(c model.Contract, op model.Op, faulted bool) []Violation {
	a := c.ActionOf(op.Call)
	if op.Call.NoKey {
		a = model.Action{Tenant: op.Call.Tenant}
	}
	switch {
	case failedByFault(op):
		return nil // the transient failure the fault made; see errorReplays
	case op.Out.ServerError() && op.Out.Status >= 500:
		return []Violation{violation(WrongStatus, a, "a 5xx answer",
			fmt.Sprintf("call %s got %d", op.Call, op.Out.Status))}
	case op.Out.ServerError():
		return []Violation{violation(WrongStatus, a, "a server error answer (answers.server_error)",
			fmt.Sprintf("call %s got %s %s", op.Call, op.Out, model.Excerpt(op.Out.Body, 200)))}
	case op.Out.Kind == model.Unknown && !faulted:
		return []Violation{violation(NoAnswer, a, "a call with no planned fault got no answer",
			fmt.Sprintf("call %s: %s", op.Call, op.Out.Err))}
	}
	return nil
}

// ruleChecks names the check and its message for each row of the reference
// model's table that an answer can break; the sequential walk and the
// concurrent judgement both report through it.
var ruleChecks = map[reference.Rule]struct {
	id   ID
	what string
}{
	reference.RuleChangedPayloadAccepted: {ChangedAccepted, "a payload not equivalent to the first was answered ok"},
	reference.RuleEquivalentRejected:     {EqualRejected, "a payload equivalent to the first was answered conflict"},
	reference.RuleUnstableID:             {UnstableResponse, "ok answers of one action carry different IDs"},
	reference.RuleChangedPayloadRefused: {WrongStatus,
		"a changed payload was answered conflict, but the contract replays the original (changed_payload: replayed)"},
	reference.RuleRefusalReplayed:    {RefusalReplay, "a valid call after a refused one got the same refusal, but the contract does not store refusals (refusals: not-stored)"},
	reference.RuleRefusalNotReplayed: {RefusalReplay, "a call after a refused one was not answered with the saved refusal, but the contract stores refusals (refusals: stored)"},
}

// ruleViolation reports the rule an answer broke; a wrong status says
// which answer was wrong for what.
func ruleViolation(c model.Contract, rule reference.Rule, op model.Op, a model.Action) Violation {
	detail := fmt.Sprintf("call %s got %s", op.Call, op.Out)
	if rc, ok := ruleChecks[rule]; ok {
		return violation(rc.id, a, rc.what, detail)
	}
	return violation(WrongStatus, a, wrongStatusReason(c, op), detail)
}

// brokenRule reports a rule broken by the action's calls together.
func brokenRule(rule reference.Rule, a model.Action, detail string) Violation {
	rc := ruleChecks[rule]
	return violation(rc.id, a, rc.what, detail)
}

// wrongStatusReason says what was wrong with an answer no state allows.
// It depends on the contract and the kind of answer only, never on an ID,
// so that a shrunk plan fails with the same message.
func wrongStatusReason(c model.Contract, op model.Op) string {
	switch {
	case op.Call.NoKey && c.KeylessCreates:
		return "a call without a key, an ordinary create under key_required: false, was not answered ok"
	case op.Call.NoKey:
		return "a call without a key was not answered invalid"
	case op.Out.Kind == model.Conflict:
		return "conflict for an action that does not exist"
	case op.Out.Kind == model.InFlight:
		return "in_flight with no other call of the action in flight"
	case op.Out.Kind == model.Invalid:
		return "invalid for a call that carried a key"
	case op.Out.Status >= 200 && op.Out.Status < 300 && len(c.Answers.Created)+len(c.Answers.Replayed) == 0:
		return "a 2xx answer without a resource ID"
	case op.Out.Status >= 200 && op.Out.Status < 300:
		// The answer matchers decide what a success is: say what they take.
		if r := reference.Read(c, model.Answer{Status: op.Out.Status, Body: op.Out.Body, ID: op.Out.ID}); r.MissingID() {
			return fmt.Sprintf("an answer that answers.%s takes, without a resource ID where it says (%s)", r.Outcome, reference.Expected(c, r.Outcome))
		}
		takes := "created: " + reference.Expected(c, "created")
		if r := reference.Expected(c, "replayed"); r != "none" {
			takes += "; replayed: " + r
		}
		return "a 2xx answer that no matcher takes (" + takes + ")"
	default:
		return "an answer outside the contract"
	}
}
