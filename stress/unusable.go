package stress

import (
	"context"
	"fmt"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/model"
)

// unusableAfter is how many plans the search runs without an ok answer
// before it calls the request wrong: a wrong path, a payload without a field
// the service requires, or a key header it does not read makes every answer
// of every plan the same refusal.
const unusableAfter = 10

// noteUnusable remembers the first call with a key whose answer no state
// of its action allows, whatever the service: outside the contract (a 404,
// a 2xx without an ID), invalid although it carried its key, or conflict as
// the first call of its action. Once any ok answer came, these are the
// service's bugs; while none came, they are the run's first clue that the
// request is wrong.
func (r *runner) noteUnusable(h model.History) {
	if r.unusable != nil {
		return
	}
	seen := map[model.Action]bool{}
	for i, op := range h.Ops {
		a := r.cfg.Contract.ActionOf(op.Call)
		first := !seen[a]
		seen[a] = true
		if op.Call.NoKey || op.Out.Err != "" || op.Call.Broken > 0 {
			continue // a broken call is refused on purpose
		}
		if k := op.Out.Kind; k == model.Other || k == model.Invalid || (k == model.Conflict && first) {
			r.unusable = &h.Ops[i]
			return
		}
	}
}

// wantedID reports whether an answer met a created or replayed matcher
// but carried no resource ID there (the contract's ID pointer may be
// wrong).
func (r *runner) wantedID(op model.Op) bool {
	return op.Out.Kind == model.Other && r.cfg.Contract.Read(model.Answer{Status: op.Out.Status, Body: op.Out.Body}).MissingID()
}

// noUsableAnswer is the contract error of a run in which no call was ever
// answered ok and no bug was found: it quotes the first answer that no
// state allows.
// Where the same call is taken with its key or tenant in another format,
// that is the finding (identifierRefusal).
func (r *runner) noUsableAnswer(ctx context.Context) error {
	if err := r.identifierRefusal(ctx); err != nil {
		return err
	}
	op := r.unusable
	return fmt.Errorf("%w: no call of the run was answered created or replayed; the first answer was %d with body %q (call %s, read as %s). "+
		"The request is likely wrong, not the service: check target.url and target.method, the payload's required fields and the key header against the service's API, "+
		"and that answers: (or statuses:) say how the service answers%s",
		contract.ErrContract, op.Out.Status, model.Excerpt(op.Out.Body, 200), op.Call, op.Out.Kind, r.identifierHint())
}

// unusableNote says, in a run that found bugs without any ok answer, which
// answer stopped the search hunting more: from then on a failure may be
// the request's, not the service's.
func (r *runner) unusableNote() string {
	op := r.unusable
	return fmt.Sprintf("no call of the run was answered created or replayed, and one was answered %d with body %q (call %s, read as %s): "+
		"no further bug was hunted after it, since the request may be wrong (check target.url, the payload's required fields and the key header)",
		op.Out.Status, model.Excerpt(op.Out.Body, 200), op.Call, op.Out.Kind)
}
