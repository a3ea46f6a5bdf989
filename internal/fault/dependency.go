package fault

import (
	"context"
	"fmt"
)

// The faults done to a dependency of the service (its key store): a
// graceful restart and a crash, each followed by a start on the same port
// and data directory. What the dependency keeps across them is its own
// business: a Redis without persistence comes back empty, one with an
// append-only file fsynced on every write comes back with every key.

// DepRestart is dep-restart: the dependency called target restarts
// gracefully.
func DepRestart(ctx context.Context, env Env, target string) (Outcome, error) {
	return onDependency(ctx, env, target, "restarted", Dependency.Restart)
}

// DepCrash is dep-crash: the dependency called target is SIGKILLed and
// started again.
func DepCrash(ctx context.Context, env Env, target string) (Outcome, error) {
	return onDependency(ctx, env, target, "crashed", Dependency.Crash)
}

// onDependency does what to the dependency called target; done says what
// it did, for the note of a fault that could not fire.
func onDependency(ctx context.Context, env Env, target, done string, what func(Dependency, context.Context) error) (Outcome, error) {
	d, ok := env.Dependency(target)
	if !ok {
		return Outcome{Note: fmt.Sprintf("no dependency %q was started (process.dependencies), so none was %s", target, done)}, nil
	}
	if err := what(d, ctx); err != nil {
		return Outcome{}, fmt.Errorf("dependency %s: %w", target, err)
	}
	return Outcome{Fired: true}, nil
}
