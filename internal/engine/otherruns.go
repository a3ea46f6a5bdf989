package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
)

// runsPrefix is what every namespace of a run without a configured one
// starts with ("is" and eight hex digits, see Run): rows under it that
// are not this run's were written by another run of idemstress on the same
// database, not by the service on its own.
const runsPrefix = model.Namespace("is")

// otherRunsBaseline fingerprints the rows outside every run's namespace,
// beside the run's own baseline, so that rows another run writes meanwhile
// can be told from stray writes; nil when the run has a namespace of its
// own configured (a shard's, shared with the job's other shards).
func (r *runner) otherRunsBaseline(ctx context.Context) (model.Baseline, error) {
	if r.cfg.Namespace != "" {
		return nil, nil
	}
	return r.session.Baseline(ctx, runsPrefix)
}

// otherRuns takes from res.Outside the changes that another run made:
// when nothing changed outside every run's namespace, the rows outside
// this run's were written inside another's, which is another idemstress
// run on this database, not the service writing where no call asked it
// to. The run is then inconclusive (it cannot tell its own stray writes
// among them), with a note on how to run jobs side by side.
func (r *runner) otherRuns(ctx context.Context, res *findings.Result, before model.Baseline) error {
	if before == nil {
		return nil
	}
	after, err := r.session.Baseline(ctx, runsPrefix)
	if err != nil {
		return err
	}
	if stray := checks.Outside(before, after); len(stray) > 0 {
		res.Outside = stray // outside every run: the service's
		return nil
	}
	tables := make([]string, len(res.Outside))
	for i, v := range res.Outside {
		tables[i], _, _ = strings.Cut(v.Detail, " before the run")
	}
	res.Outside = nil
	r.otherWriter = fmt.Sprintf("another idemstress run wrote to this database meanwhile (rows under another %q namespace changed in %s), so stray writes (IDEM-009) could not be told from its rows; run jobs side by side as shards of one job (stress --shard i/n), which share a namespace, or one at a time",
		runsPrefix, strings.Join(tables, ", "))
	r.note(r.otherWriter)
	return nil
}
