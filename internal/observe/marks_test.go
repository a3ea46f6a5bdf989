package observe_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/observe"
)

// TestBeginTakesTheMarksObserveRead: after an Observe, Begin reads no
// marks of its own: it takes those the last Observe read at its end, which
// were read before the next plan's first call as well. A row of the next
// plan whose id is above those marks but not above what a read by Begin
// would have found (a foreign row written after the Observe, gone again
// before the plan's row took its id) is found, as every other row of it.
func TestBeginTakesTheMarksObserveRead(t *testing.T) {
	url, _ := newDatabase(t)
	pool := connect(t, url, "")
	exec(t, pool, serialTaggedSchema) // tickets 1 to 3
	o := observe.NewObserver(pool, taggedEffects())
	first := model.Namespace("run7-1-")
	o.Begin(t.Context(), first)
	exec(t, pool, `INSERT INTO tickets (tenant, subject) VALUES ('run7-1-A', 'x [run7-1-A.k1.v0]')`) // 4
	if _, err := o.Observe(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	exec(t, pool, `INSERT INTO tickets (tenant, subject) VALUES ('other', 'Printer offline')`) // 5
	next := model.Namespace("run7-2-")
	o.Begin(t.Context(), next)
	exec(t, pool, `DELETE FROM tickets WHERE id = 5;
		INSERT INTO tickets (id, tenant, subject) VALUES (5, 'run7-2-A', 'x [run7-2-A.k1.v0]');
		INSERT INTO tickets (tenant, subject) VALUES ('run7-2-B', 'x [run7-2-B.k1.v0]')`) // 6
	snap, err := o.Observe(t.Context(), next)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range snap["tickets"] {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	if want := []string{"5", "6"}; !slices.Equal(ids, want) {
		t.Errorf("the next plan's tickets: ids %q, want %q (a mark read after the first Observe?)", ids, want)
	}
}
