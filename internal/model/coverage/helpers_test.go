package coverage_test

import "github.com/idemstress/idemstress/internal/model"

// Payloads of one action: p and pSpaced are canonical-equal, pOther is not.
var (
	p       = []byte(`{"subject":"a"}`)
	pSpaced = []byte(`{ "subject" : "a" }`)
	pOther  = []byte(`{"subject":"b"}`)
)

func ok(id string) model.Outcome { return model.Outcome{Kind: model.OK, Status: 201, ID: id} }

func refusal(status int) model.Outcome {
	kind := model.Other
	switch status {
	case 400:
		kind = model.Invalid
	case 422:
		kind = model.Conflict
	}
	return model.Outcome{Kind: kind, Status: status}
}
