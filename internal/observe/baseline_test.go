package observe_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/observe"
)

// serialTaggedSchema is the tagged layout with sequence-assigned ids, as
// the sample service has it: the baseline marks where the run's rows begin.
const serialTaggedSchema = `
CREATE TABLE tickets (id bigserial PRIMARY KEY, tenant text NOT NULL, subject text NOT NULL);
CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, ticket_id bigint REFERENCES tickets (id));
CREATE INDEX ON notification_outbox (ticket_id);
INSERT INTO tickets (tenant, subject) VALUES
	('ns1-A',  'Printer offline [ns1-A.k1.v0]'),
	('ns2-A',  'Printer offline [ns2-A.k1.v0]'),
	('other',  'Printer offline');
INSERT INTO notification_outbox (ticket_id) VALUES (1), (2), (3);`

// TestBaselineSeesEveryChangeOutside: every kind of write outside the
// run's prefix changes the fingerprint, even one that leaves the row as it
// was; writes inside it do not, even when VACUUM FREEZE has taken their
// row versions' xmin.
func TestBaselineSeesEveryChangeOutside(t *testing.T) {
	layouts := []struct {
		name, schema string
		effects      []effect.Effect
		inside       string
		outside      map[string]string
	}{
		{"keys", sampleSchema + sampleRows, sampleEffects(),
			`INSERT INTO tickets VALUES (100, 'run7-3-A', 'run7-3-k1', 'x');
			INSERT INTO notification_outbox (tenant, request_key, ticket_id) VALUES ('run7-3-A', 'run7-3-k1', 100);
			INSERT INTO tickets VALUES (101, 'other-B', 'run7-3-k2', 'x');
			UPDATE tickets SET subject = 'y' WHERE id = 100;
			DELETE FROM tickets WHERE id = 101`,
			map[string]string{
				"insert":          "INSERT INTO notification_outbox (tenant, request_key, ticket_id) VALUES ('ns2-A', 'ns2-k1', 10)",
				"update":          "UPDATE tickets SET subject = 'changed' WHERE id = 7",
				"update in place": "UPDATE tickets SET subject = subject WHERE id = 10",
				"delete":          "DELETE FROM notification_outbox WHERE ticket_id = 10",
				"moved inside":    "UPDATE notification_outbox SET tenant = 'run7-9-A', request_key = 'run7-9-k1' WHERE ticket_id = 10",
			}},
		{"tagged", taggedSchema, taggedEffects(),
			`INSERT INTO tickets VALUES (100, 'run7-3-A', 'x [run7-3-A.k1.v0]'); INSERT INTO notification_outbox (ticket_id) VALUES (100);
			UPDATE notification_outbox SET ticket_id = 100 WHERE ticket_id = 100`,
			map[string]string{
				"insert":          "INSERT INTO notification_outbox (ticket_id) VALUES (4)",
				"update":          "UPDATE tickets SET subject = 'changed' WHERE id = 4",
				"update in place": "UPDATE notification_outbox SET ticket_id = ticket_id WHERE ticket_id = 4",
				"delete":          "DELETE FROM notification_outbox WHERE ticket_id = 4",
				"moved inside":    "UPDATE tickets SET subject = 'x [run7-9-A.k1.v0]' WHERE id = 4",
			}},
		{"tagged, serial ids", serialTaggedSchema, taggedEffects(),
			`INSERT INTO tickets (tenant, subject) VALUES ('run7-3-A', 'x [run7-3-A.k1.v0]');
			INSERT INTO notification_outbox (ticket_id) SELECT id FROM tickets WHERE tenant = 'run7-3-A'`,
			map[string]string{
				"insert":          "INSERT INTO tickets (tenant, subject) VALUES ('other', 'Printer offline')",
				"update":          "UPDATE tickets SET subject = 'changed' WHERE id = 3",
				"update in place": "UPDATE notification_outbox SET ticket_id = ticket_id WHERE ticket_id = 3",
				"delete":          "DELETE FROM notification_outbox WHERE ticket_id = 3",
				"moved inside":    "UPDATE tickets SET subject = 'x [run7-9-A.k1.v0]' WHERE id = 3",
			}},
	}
	for _, listed := range []bool{true, false} {
		way := map[bool]string{true: "xmin listed", false: "xmin by age"}[listed]
		undo := observe.ListRunTransactions(listed)
		// The way's subtests run in parallel, each on a database of its
		// own; this t.Run returns once they all have, before undo.
		t.Run(way, func(t *testing.T) {
			for _, layout := range layouts {
				for _, change := range append([]string{"none", "freeze"}, slices.Sorted(maps.Keys(layout.outside))...) {
					t.Run(layout.name+"/"+change, func(t *testing.T) {
						t.Parallel()
						url, _ := newDatabase(t)
						pool := connect(t, url, "")
						exec(t, pool, layout.schema)
						o := observe.NewObserver(pool, layout.effects)
						prefix := model.Namespace("run7-")
						before, err := o.Baseline(t.Context(), prefix)
						if err != nil {
							t.Fatal(err)
						}
						if len(before) != 2 {
							t.Fatalf("baseline before of %d tables: %v (notes %q)", len(before), before, o.Notes())
						}
						exec(t, pool, layout.inside)
						switch change {
						case "none":
						case "freeze":
							exec(t, pool, "VACUUM FREEZE tickets, notification_outbox")
						default:
							exec(t, pool, layout.outside[change])
						}
						after, err := o.Baseline(t.Context(), prefix)
						if err != nil {
							t.Fatal(err)
						}
						vs := checks.Outside(before, after)
						if change == "none" || change == "freeze" {
							if len(vs) != 0 {
								t.Fatalf("rows inside the run counted as outside: %v", vs)
							}
						} else if len(vs) == 0 || slices.ContainsFunc(vs, func(v checks.Violation) bool { return v.Check != checks.StrayWrite }) {
							t.Fatalf("%s outside the run: %v (before %v, after %v)", change, vs, before, after)
						}
						// An old row changed to carry the run's namespace is one the
						// marks do not see: the notes say so then, and only then.
						if notes := o.Notes(); len(notes) > 0 && layout.name == "tagged, serial ids" && change != "moved inside" {
							t.Errorf("notes: %q", notes)
						}
					})
				}
			}
		})
		undo()
	}
}

// TestBaselineNeverFailsTheRun: a table the baseline cannot fingerprint in
// its budget is left out, the notes say so, and a change there is not
// reported (nothing was measured), where the other tables still are.
func TestBaselineNeverFailsTheRun(t *testing.T) {
	url, _ := newDatabase(t)
	pool := connect(t, url, "")
	exec(t, pool, sampleSchema+sampleRows)
	// A view whose every row takes 200ms: over a 100ms budget at once.
	exec(t, pool, `CREATE VIEW tickets_slow AS SELECT t.*, pg_sleep(0.2)::text AS slept FROM tickets t`)
	effects := []effect.Effect{
		{Table: "tickets_slow", Tenant: "tenant", Key: "request_key", ID: "id"},
		{Table: "notification_outbox", Tenant: "tenant", Key: "request_key"},
	}
	o := observe.NewObserver(pool, effects)
	o.BaselineBudget = 100 * time.Millisecond
	prefix := model.Namespace("run7-")
	before, err := o.Baseline(t.Context(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := before["tickets_slow"]; ok {
		t.Fatalf("tickets_slow fingerprinted in 100ms: %v", before)
	}
	notes := strings.Join(o.Notes(), "\n")
	if !strings.Contains(notes, "tickets_slow left out of the check for changes outside the run") || !strings.Contains(notes, "statement timeout") {
		t.Errorf("notes do not say tickets_slow was left out for lack of time:\n%s", notes)
	}
	o.BaselineBudget = 0 // the default
	exec(t, pool, "UPDATE tickets SET subject = 'changed' WHERE id = 7")
	after, err := o.Baseline(t.Context(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	if vs := checks.Outside(before, after); len(vs) != 0 {
		t.Fatalf("a change reported in a table left out: %v", vs)
	}
	exec(t, pool, "DELETE FROM notification_outbox WHERE ticket_id = 10")
	after, err = o.Baseline(t.Context(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	if vs := checks.Outside(before, after); len(vs) != 1 || !strings.Contains(vs[0].Message, "notification_outbox") {
		t.Fatalf("a change in the table measured: %v (before %v, after %v, notes %q)", vs, before, after, o.Notes())
	}
	// A budget spent before the table's turn: left out, and said so.
	o2 := observe.NewObserver(pool, effects[1:])
	o2.BaselineBudget = time.Nanosecond
	before, err = o2.Baseline(t.Context(), "run8-")
	if err != nil || len(before) != 0 {
		t.Fatalf("baseline on no budget: %v, %v", before, err)
	}
	if n := o2.Notes(); len(n) != 1 || !strings.Contains(n[0], "notification_outbox left out") {
		t.Errorf("notes on no budget: %q", n)
	}
}

// TestBaselineFindsRowsTheMarksMissed: a service that sets ids itself, below
// the mark, defeats observing by mark; the baseline after the run finds its
// rows by the scan it makes anyway, counts them inside (no stray write
// reported), and says that the run's verdicts may be wrong.
func TestBaselineFindsRowsTheMarksMissed(t *testing.T) {
	url, _ := newDatabase(t)
	pool := connect(t, url, "")
	exec(t, pool, serialTaggedSchema)
	o := observe.NewObserver(pool, taggedEffects())
	prefix := model.Namespace("run7-")
	before, err := o.Baseline(t.Context(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	ns := model.Namespace("run7-3-")
	o.Begin(t.Context(), ns)
	exec(t, pool, `INSERT INTO tickets (id, tenant, subject) VALUES (-5, 'run7-3-A', 'x [run7-3-A.k1.v0]');
		INSERT INTO notification_outbox (ticket_id) VALUES (-5)`)
	snap, err := o.Observe(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap["tickets"]) != 0 {
		t.Fatalf("the mark found a row below it: %v", snap)
	}
	after, err := o.Baseline(t.Context(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	if vs := checks.Outside(before, after); len(vs) != 0 {
		t.Errorf("the run's own rows reported outside it: %v", vs)
	}
	notes := strings.Join(o.Notes(), "\n")
	if !strings.Contains(notes, "1 row(s) of this run in tickets have ids at or below the mark") {
		t.Errorf("notes do not say the marks missed a row:\n%s", notes)
	}
}

// TestBaselineOfAView: a view has no row versions; its fingerprint is a
// count and a sum of hashes of its rows outside the run, which any change
// of their values moves.
func TestBaselineOfAView(t *testing.T) {
	url, _ := newDatabase(t)
	pool := connect(t, url, "")
	exec(t, pool, sampleSchema+sampleRows)
	exec(t, pool, `CREATE VIEW tickets_view AS SELECT * FROM tickets`)
	o := observe.NewObserver(pool, []effect.Effect{{Table: "tickets_view", Tenant: "tenant", Key: "request_key", ID: "id"}})
	before, err := o.Baseline(t.Context(), "run7-")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before["tickets_view"], "content") {
		t.Fatalf("view's fingerprint: %v", before)
	}
	exec(t, pool, "INSERT INTO tickets VALUES (100, 'run7-3-A', 'run7-3-k1', 'x')")
	after, err := o.Baseline(t.Context(), "run7-")
	if err != nil {
		t.Fatal(err)
	}
	if vs := checks.Outside(before, after); len(vs) != 0 {
		t.Fatalf("rows inside the run counted as outside: %v", vs)
	}
	exec(t, pool, "UPDATE tickets SET subject = 'changed' WHERE id = 7")
	after, err = o.Baseline(t.Context(), "run7-")
	if err != nil {
		t.Fatal(err)
	}
	if vs := checks.Outside(before, after); len(vs) != 1 {
		t.Fatalf("a change outside the run: %v", vs)
	}
}
