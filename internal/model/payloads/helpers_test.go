package payloads_test

import (
	"fmt"
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

func states(ss []reference.State) string {
	out := "["
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		if !s.Present {
			out += "absent"
			continue
		}
		out += fmt.Sprintf("(%s, %q)", s.Body, s.ID)
	}
	return out + "]"
}
