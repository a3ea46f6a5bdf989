package usable

import (
	"context"
	"fmt"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/model"
)

// idNowhere is the contract error of a run in which no 2xx answer had an ID
// where the contract says the ID is.
func (pr Probe) idNowhere() error {
	op := pr.Clues.noID
	where := fmt.Sprintf("target.id %q: no 2xx answer of the run had a resource ID at that JSON pointer", pr.HTTP.ID)
	if pr.HTTP.ID == client.IDFromLocation {
		where = "target.id \"location\": no 2xx answer of the run had a Location header with a last path segment"
	}
	if a := pr.Contract.Answers; len(a.Created)+len(a.Replayed) > 0 {
		where = fmt.Sprintf("no answer of the run that answers.created or answers.replayed match had a resource ID where their id: (or target.id %q) says", pr.HTTP.ID)
	}
	return fmt.Errorf("%w: %s; the first was %d with body %q (call %s)", contract.ErrContract, where, op.Out.Status, model.Excerpt(op.Out.Body, 200), op.Call)
}

// UnusableAfter is how many plans the search runs without an ok answer
// before it calls the request wrong: a wrong path, a payload without a field
// the service requires, or a key header it does not read makes every answer
// of every plan the same refusal.
const UnusableAfter = 10

// noUsableAnswer is the contract error of a run in which no call was ever
// answered ok and no bug was found: it quotes the first answer that no
// state allows.
// Where the same call is taken with its key or tenant in another format,
// that is the finding (identifierRefusal).
func (pr Probe) noUsableAnswer(ctx context.Context) error {
	if err := pr.identifierRefusal(ctx); err != nil {
		return err
	}
	op := pr.Clues.unusable
	return fmt.Errorf("%w: no call of the run was answered created or replayed; the first answer was %d with body %q (call %s, read as %s). "+
		"The request is likely wrong, not the service: check target.url and target.method, the payload's required fields and the key header against the service's API, "+
		"and that answers: (or statuses:) say how the service answers%s",
		contract.ErrContract, op.Out.Status, model.Excerpt(op.Out.Body, 200), op.Call, op.Out.Kind, pr.identifierHint())
}

// UnusableNote says, in a run that found bugs without any ok answer, which
// answer stopped the search hunting more: from then on a failure may be
// the request's, not the service's.
func (pr Probe) UnusableNote() string {
	op := pr.Clues.unusable
	return fmt.Sprintf("no call of the run was answered created or replayed, and one was answered %d with body %q (call %s, read as %s): "+
		"no further bug was hunted after it, since the request may be wrong (check target.url, the payload's required fields and the key header)",
		op.Out.Status, model.Excerpt(op.Out.Body, 200), op.Call, op.Out.Kind)
}
