package fault

import (
	"context"

	"github.com/idemstress/idemstress/internal/model"
)

// Restart restarts every replica gracefully (or starts one a crash left
// down) and waits until each is ready: every replica is up again.
func Restart(ctx context.Context, env Env, _ string) (Outcome, error) {
	r := env.Replicas()
	if r == nil {
		return Outcome{}, needs(model.FaultRestart, "a service that idemstress starts")
	}
	for i := range r.Addrs() {
		if err := r.Restart(ctx, i); err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{Fired: true, Up: true}, nil
}
