package usable

import (
	"context"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/model"
)

// Probe asks the service, at the end of a run whose clues show a
// problem, what exactly it refuses, and words the contract error that
// says which field of the contract to fix.
type Probe struct {
	Contract model.Contract
	HTTP     client.HTTPSpec
	// Clues are the run's, read from every history it executed.
	Clues Clues
	// Run starts the namespaces of the probes' calls.
	Run string
	// Bugs counts the bugs the run found: an error says they may follow
	// from the contract's mistake.
	Bugs int
	// Try executes a plan in a namespace of its own, as the run's plans
	// are, and returns its history.
	Try func(ctx context.Context, plan model.Plan) (model.History, error)
	// TryWith sends one call alone with its identifiers made under
	// another contract (its rows are not read); nil when there is no
	// service to ask, and then no identifier is probed.
	TryWith func(ctx context.Context, c model.Contract, ns model.Namespace, call model.Call) (model.Op, error)
}

// Error is the contract error of problem p, worded after asking the
// service what it refuses where that tells the field to fix; nil for
// RequestUsable.
func (pr Probe) Error(ctx context.Context, p Problem) error {
	switch p {
	case IDNowhere:
		return pr.idNowhere()
	case NoUsableAnswer:
		return pr.noUsableAnswer(ctx)
	case InputRefused:
		return pr.refusal(ctx)
	}
	return nil
}
