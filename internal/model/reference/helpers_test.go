package reference_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// Payloads of one action: p and pSpaced are canonical-equal, pOther is not.
var (
	p       = []byte(`{"subject":"a"}`)
	pSpaced = []byte(`{ "subject" : "a" }`)
	pOther  = []byte(`{"subject":"b"}`)
)

var absent = reference.State{}

func present(body []byte, id string) reference.State {
	return reference.State{Present: true, Body: body, ID: id}
}

func ok(id string) model.Outcome { return model.Outcome{Kind: model.OK, Status: 201, ID: id} }

func answer(kind model.OutcomeKind) model.Outcome { return model.Outcome{Kind: kind} }

// op builds one call of action A/k1 with the given body and outcome.
func op(t *testing.T, body []byte, out model.Outcome) model.Op {
	t.Helper()
	return model.Op{Call: model.Call{Tenant: "A", Key: "k1"}, Body: body, Out: out}
}

// timed gives an op its start and end.
func timed(o model.Op, start, end int64) model.Op {
	o.Start, o.End = start, end
	return o
}

func keylessOp(t *testing.T, body []byte, out model.Outcome) model.Op {
	t.Helper()
	o := op(t, body, out)
	o.Call.NoKey = true
	return o
}
