package sink

import (
	"slices"
	"sync"
	"time"

	"github.com/idemstress/idemstress/internal/model"
)

// log keeps a sink's deliveries until the plan they belong to takes them.
type log struct {
	mu  sync.Mutex
	got []received
}

// received is a delivery as it arrived, before a plan's clock is put on it.
type received struct {
	at time.Time
	d  model.Delivery
}

// add keeps delivery d, which arrived at at; past maxKept the oldest go.
func (l *log) add(at time.Time, d model.Delivery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, received{at: at, d: d})
	if len(l.got) > maxKept {
		l.got = slices.Delete(l.got, 0, len(l.got)-maxKept)
	}
}

// Take removes the deliveries whose body belongs says are a plan's and
// returns them in the order they arrived, on the clock of the plan's
// history (since t0).
func (l *log) Take(t0 time.Time, belongs func(body []byte) bool) []model.Delivery {
	return l.matching(t0, belongs, true)
}

// Peek is Take without removing them.
func (l *log) Peek(t0 time.Time, belongs func(body []byte) bool) []model.Delivery {
	return l.matching(t0, belongs, false)
}

func (l *log) matching(t0 time.Time, belongs func(body []byte) bool, remove bool) []model.Delivery {
	l.mu.Lock()
	var mine []received
	kept := l.got[:0]
	for _, g := range l.got {
		switch {
		case belongs(g.d.Body):
			mine = append(mine, g)
			if !remove {
				kept = append(kept, g)
			}
		default:
			kept = append(kept, g)
		}
	}
	l.got = kept
	l.mu.Unlock()
	// A slow answer is recorded when it ends: put it back where it arrived.
	slices.SortStableFunc(mine, func(a, b received) int { return a.at.Compare(b.at) })
	out := make([]model.Delivery, len(mine))
	for i, g := range mine {
		out[i] = g.d
		out[i].Time = int64(g.at.Sub(t0))
	}
	return out
}
