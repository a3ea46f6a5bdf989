package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// The search draws plan i of a run from a seed of its own, DeriveSeed(seed,
// i) or, for the first plans, one derived from it in the world of the
// fault dealt to the plan (planAt), with rapid's generator outside
// rapid.Check. The plans a run tries are then the same whatever the
// number of workers, and a failing plan is shrunk by a rapid.Check whose
// seed is that plan's, in its world: rapid draws its first case from its
// seed exactly as Generator.Example does, so it starts from the plan the
// search found (TestPlanSeedIsRapidsFirstCase pins this).

// DeriveSeed is the i-th seed derived from seed, a splitmix64 step, so
// that neighbouring seeds (7 and 8) do not share derived seeds shifted by
// one: a run's plan i is drawn from DeriveSeed(run seed, i), and a sharded
// job's shard i runs with DeriveSeed(job seed, i).
func DeriveSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// drawPlan is the plan rapid draws from seed. rapid reads its seed flag
// first, which another run's shrink may be setting (flagsMu).
func drawPlan(w gen.World, seed uint64) model.Plan {
	flagsMu.RLock()
	defer flagsMu.RUnlock()
	return gen.Plan(w).Example(int(seed))
}

// redraws bounds how many seeds plan i tries for the fault dealt to it.
// The plan is drawn in the deal's world (gen.Deal.World), which plans the
// dealt call fault alone and names the dealt point (or failure) on the
// call that draws it: one plan in four carries a fault with its retry,
// one in twenty a fault alone, whatever the run plans beside it, so 1024
// tries miss about once in 10^22; one that misses keeps the plan its own
// seed draws. (Drawn in the run's world, one plan in 100 carried a kind
// of thirteen and fewer than one in 500 the rarest of sixteen points,
// which 8192 tries still missed: a default run left one or two points
// untried.)
const redraws = 1024

// planAt is plan i of a run, the seed it was drawn from and the world it
// was drawn in. The first plans of a run are dealt the world's faults,
// one each in gen.Deals's order: plan i is drawn in deal i's world from
// DeriveSeed(seed, i) or, when that plan does not carry the deal, from
// the first DeriveSeed(that seed, j) whose plan does. A short run then
// tries every kind and point it plans instead of leaving one to chance
// (12 kinds, 3–5 draws each in 100 plans, and a correct demo row drew
// crash 0 times), and the plan is still exactly rapid's first case from
// its seed in its world, so shrinking starts from it.
func planAt(w gen.World, deals []gen.Deal, seed uint64, i int) (uint64, gen.World, model.Plan) {
	s := DeriveSeed(seed, i)
	if i >= len(deals) {
		return s, w, drawPlan(w, s)
	}
	d := deals[i]
	w = d.World(w)
	p := drawPlan(w, s)
	if d.In(p) {
		return s, w, p
	}
	for j := range redraws {
		t := DeriveSeed(s, j)
		if q := drawPlan(w, t); d.In(q) {
			return t, w, q
		}
	}
	return s, w, p
}

// attempt is one plan of the search and what running it gave.
type attempt struct {
	index int
	seed  uint64
	// world is the world the plan was drawn in from seed: the run's, or
	// its deal's (planAt), which rapid shrinks the plan in.
	world gen.World
	plan  model.Plan
	trial Trial
	err   error
	// took is how long the plan ran: what a shrink candidate as big
	// costs (shrinkBudget).
	took time.Duration
}

// window keeps up to w plans of the search running at once, each in a
// namespace of its own, and hands their attempts back in plan order: a
// worker that ends takes the next plan at once, so one slow plan does not
// hold the others back (as a batch that waits for its slowest would).
type window struct {
	r      *runner
	ctx    context.Context
	w      int
	next   int
	queue  []*running
	closed bool
}

// running is a plan of the search in flight; done closes when it ends.
type running struct {
	attempt
	done chan struct{}
}

// fill starts plans until w are in flight or limit plans were started.
func (q *window) fill(limit int) {
	for !q.closed && len(q.queue) < q.w && q.next < limit {
		a := &running{attempt: attempt{index: q.next}, done: make(chan struct{})}
		a.seed, a.world, a.plan = planAt(q.r.cfg.World, q.r.deals, q.r.seed, a.index)
		q.next++
		q.queue = append(q.queue, a)
		go func() {
			defer close(a.done)
			defer func() {
				// A Go target that panics must not take the process
				// down from a worker of ours: the run stops instead.
				if p := recover(); p != nil {
					a.err = fmt.Errorf("%w: the target panicked: %v", errInfrastructure, p)
				}
			}()
			start := time.Now()
			a.trial, a.err = q.r.try(q.ctx, a.plan)
			a.took = time.Since(start)
		}()
	}
}

// take waits for the oldest plan in flight and returns it; false when
// none is.
func (q *window) take() (attempt, bool) {
	if len(q.queue) == 0 {
		return attempt{}, false
	}
	a := q.queue[0]
	<-a.done
	q.queue = q.queue[1:]
	return a.attempt, true
}

// quiet waits until no plan is in flight (their attempts stay queued, in
// order), so that a bug shrinks with nothing else running.
func (q *window) quiet() {
	for _, a := range q.queue {
		<-a.done
	}
}

// close starts no more plans; the ones in flight still end and are taken.
func (q *window) close() { q.closed = true }

// workers is how many plans the search runs at once. The db-stall
// nemesis locks a whole table and counts every request waiting on it, or,
// through the database proxy, counts a burst's calls as held once every
// session of the service is: either way another plan's calls would be
// taken for the burst's, so under it plans run one at a time.
func (r *runner) workers() int {
	w := max(1, r.cfg.Workers)
	if r.cfg.DBStall != "" && w > 1 {
		r.note(fmt.Sprintf("workers: %d asked, 1 used: the db-stall nemesis (on %s) holds every request of a burst, so plans run one at a time", w, r.cfg.DBStall))
		return 1
	}
	if i := slices.IndexFunc(r.cfg.Faults, func(f model.Fault) bool { k, _ := faultkind.KindOf(f); return k.Needs != faultkind.NeedsProxy }); i >= 0 && w > 1 {
		k, _ := faultkind.KindOf(r.cfg.Faults[i])
		r.note(fmt.Sprintf("workers: %d asked, 1 used: the %s fault acts on %s every plan shares, so plans run one at a time", w, k.Name, shared[k.Needs]))
		return 1
	}
	return w
}

// shared says what a fault that needs need acts on, which every plan of
// a run shares.
var shared = map[faultkind.FaultNeed]string{
	faultkind.NeedsService:    "the service's processes",
	faultkind.NeedsDependency: "the service's dependencies",
	faultkind.NeedsDatabase:   "a whole effect table (locked, its waiting sessions ended or held)",
}
