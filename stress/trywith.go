package stress

import (
	"context"
	"fmt"
	"time"

	"github.com/idemstress/idemstress/internal/model"
)

// tryWith sends one call, alone, with its identifiers made under contract
// c, and returns what it got: a question to the service, not a plan (its
// rows are not read).
func (s *Session) tryWith(ctx context.Context, c model.Contract, ns model.Namespace, call model.Call) (model.Op, error) {
	x := s.exec
	x.Contract = c
	h, err := x.Execute(ctx, ns, model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{call}}}}, time.Now())
	if err != nil || len(h.Ops) != 1 {
		return model.Op{}, fmt.Errorf("probe: %d answers, %v", len(h.Ops), err)
	}
	return h.Ops[0], nil
}
