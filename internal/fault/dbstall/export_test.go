package dbstall

import (
	"context"
	"sync/atomic"
)

// FailAfter is Stall.Fail with first run once the lock is held, before
// the sessions already waiting on it are listed.
func FailAfter(s Stall, ctx context.Context, first func(context.Context), call func(ctx context.Context, answered *atomic.Int64)) (StallReport, error) {
	return s.fail(ctx, first, call)
}
