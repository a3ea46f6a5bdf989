package observe_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/observe"
)

// taggedSchema is the sample service's tagged layout: no key columns; the
// subject carries the action tag; outbox rows only point at their ticket.
const taggedSchema = `
CREATE TABLE tickets (id bigint PRIMARY KEY, tenant text NOT NULL, subject text NOT NULL);
CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, ticket_id bigint REFERENCES tickets (id));
INSERT INTO tickets VALUES
	(1, 'ns1-A',  'Printer offline [ns1-A.k1.v0]'),
	(2, 'ns1-B',  'Printer offline [ns1-B.k1.v1] #1'),
	(3, 'ns10-A', 'Printer offline [ns10-A.k1.v0]'),
	(4, 'ns2-A',  'Printer offline [ns2-A.k1.v0]');
INSERT INTO notification_outbox (ticket_id) VALUES (1), (1), (2), (3), (4);`

func TestObserveTaggedAndJoined(t *testing.T) {
	url, _ := newDatabase(t)
	pool := connect(t, url, "")
	exec(t, pool, taggedSchema)
	o := observe.NewObserver(pool, taggedEffects())
	if err := o.Validate(t.Context()); err != nil {
		t.Fatal(err)
	}
	snap, err := o.Observe(t.Context(), model.Namespace("ns1-"))
	if err != nil {
		t.Fatal(err)
	}
	var tickets, outbox []string
	for _, r := range snap["tickets"] {
		tickets = append(tickets, r.ID+" "+r.Tenant+" "+r.Tag)
	}
	for _, r := range snap["notification_outbox"] {
		outbox = append(outbox, r.Join)
	}
	slices.Sort(tickets)
	slices.Sort(outbox)
	if want := []string{"1 ns1-A Printer offline [ns1-A.k1.v0]", "2 ns1-B Printer offline [ns1-B.k1.v1] #1"}; !slices.Equal(tickets, want) {
		t.Errorf("tickets %q, want %q", tickets, want)
	}
	if want := []string{"1", "1", "2"}; !slices.Equal(outbox, want) {
		t.Errorf("outbox rows pointing at %q, want %q", outbox, want)
	}
}

// A query effect: the contract gives a SELECT over the namespace prefix $1
// instead of a table; its result columns are named like table columns.
func TestObserveQuery(t *testing.T) {
	url, _ := newDatabase(t)
	pool := connect(t, url, "")
	exec(t, pool, taggedSchema)
	effects := []effect.Effect{{
		Table: "tickets_by_tag",
		Query: "SELECT id, tenant, subject AS label FROM tickets WHERE strpos(subject, $1) > 0",
		Tag:   "label", Tenant: "tenant", ID: "id",
	}}
	o := observe.NewObserver(pool, effects)
	if err := o.Validate(t.Context()); err != nil {
		t.Fatal(err)
	}
	snap, err := o.Observe(t.Context(), model.Namespace("ns1-"))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(snap["tickets_by_tag"]); got != 2 {
		t.Fatalf("%d rows, want 2: %+v", got, snap)
	}

	effects[0].Tag = "subject"
	err = observe.NewObserver(pool, effects).Validate(t.Context())
	if !errors.Is(err, observe.ErrSchema) || !strings.Contains(err.Error(), `column "subject" not found in the result of query "tickets_by_tag" (columns: id, tenant, label)`) {
		t.Errorf("query with a missing column: %v", err)
	}
	effects[0].Query = "SELECT id FROM no_such_table WHERE $1 = ''"
	if err := observe.NewObserver(pool, effects).Validate(t.Context()); !errors.Is(err, observe.ErrSchema) || !strings.Contains(err.Error(), "no_such_table") {
		t.Errorf("query over a missing table: %v", err)
	}
}

func TestValidateEffectsAttribution(t *testing.T) {
	for _, tc := range []struct {
		name    string
		effects []effect.Effect
		want    string
	}{
		{"no attribution", []effect.Effect{{Table: "t", ID: "id"}}, "exactly one of key"},
		{"key and tag", []effect.Effect{{Table: "t", Tenant: "a", Key: "k", Tag: "s"}}, "exactly one of key"},
		{"key without tenant", []effect.Effect{{Table: "t", Key: "k"}}, "tenant"},
		{"join to an undeclared table", []effect.Effect{{Table: "t", Join: &effect.Reference{Column: "c", Table: "u"}}}, `"u" is not a declared effect table`},
		{"join to a table without id", []effect.Effect{{Table: "u", Tag: "s"}, {Table: "t", Join: &effect.Reference{Column: "c", Table: "u"}}}, "no id column"},
		{"join to a joined table", []effect.Effect{
			{Table: "a", Tag: "s", ID: "id"},
			{Table: "b", ID: "id", Join: &effect.Reference{Column: "c", Table: "a"}},
			{Table: "c", Join: &effect.Reference{Column: "c", Table: "b"}}}, "joined itself"},
		{"query without the namespace", []effect.Effect{{Table: "q", Query: "SELECT 1", Tag: "s"}}, "$1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := effect.ValidateEffects(tc.effects)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want it to mention %q", err, tc.want)
			}
		})
	}
	if err := effect.ValidateEffects(taggedEffects()); err != nil {
		t.Errorf("tagged effects: %v", err)
	}
}

// The baseline sees any change outside the run's prefix, and none inside.
func TestBaseline(t *testing.T) {
	for _, layout := range []struct {
		name, schema string
		effects      []effect.Effect
		inside       string
		outside      string
	}{
		{"keys", sampleSchema, sampleEffects(),
			"INSERT INTO tickets VALUES (100, 'run7-3-A', 'run7-3-k1', 'x'); INSERT INTO notification_outbox (tenant, request_key, ticket_id) VALUES ('run7-3-A', 'run7-3-k1', 100)",
			"UPDATE tickets SET subject = 'changed' WHERE id = 7"},
		{"tagged", taggedSchema, taggedEffects(),
			"INSERT INTO tickets VALUES (100, 'run7-3-A', 'x [run7-3-A.k1.v0]'); INSERT INTO notification_outbox (ticket_id) VALUES (100)",
			"INSERT INTO notification_outbox (ticket_id) VALUES (4)"},
	} {
		t.Run(layout.name, func(t *testing.T) {
			url, _ := newDatabase(t)
			pool := connect(t, url, "")
			exec(t, pool, layout.schema)
			if layout.name == "keys" {
				exec(t, pool, sampleRows)
			}
			o := observe.NewObserver(pool, layout.effects)
			prefix := model.Namespace("run7-")
			before, err := o.Baseline(t.Context(), prefix)
			if err != nil {
				t.Fatal(err)
			}
			exec(t, pool, layout.inside)
			after, err := o.Baseline(t.Context(), prefix)
			if err != nil {
				t.Fatal(err)
			}
			if vs := checks.Outside(before, after); len(vs) != 0 {
				t.Fatalf("rows inside the run counted as outside: %v", vs)
			}
			exec(t, pool, layout.outside)
			after, err = o.Baseline(t.Context(), prefix)
			if err != nil {
				t.Fatal(err)
			}
			vs := checks.Outside(before, after)
			if len(vs) != 1 || vs[0].Check != checks.StrayWrite || !strings.Contains(vs[0].Message, "outside the run's namespace") {
				t.Fatalf("a change outside the run: %v", vs)
			}
		})
	}
}

// taggedEffects is the sample service's tagged layout: tickets keep no key,
// their subject carries the action tag; outbox rows belong to their ticket.
func taggedEffects() []effect.Effect {
	return []effect.Effect{
		{Table: "tickets", Tag: "subject", Tenant: "tenant", ID: "id", PerAction: 1, Fields: map[string]string{"subject": "/subject"}},
		{Table: "notification_outbox", Join: &effect.Reference{Column: "ticket_id", Table: "tickets"}, PerAction: 1},
	}
}

// A query: effect that does not end fails the observation at the
// statement timeout instead of hanging the run.
func TestQueryIsBounded(t *testing.T) {
	url, _ := newDatabase(t)
	pool := connect(t, url, "")
	exec(t, pool, taggedSchema)
	effects := []effect.Effect{{
		Table: "slow",
		Query: "SELECT id, tenant, subject AS label FROM tickets WHERE strpos(subject, $1) > 0 AND (SELECT true FROM pg_sleep(5))",
		Tag:   "label", Tenant: "tenant", ID: "id",
	}}
	o := observe.NewObserver(pool, effects)
	o.StatementTimeout = 200 * time.Millisecond
	if err := o.Validate(t.Context()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := o.Observe(t.Context(), model.Namespace("ns1-"))
	if err == nil || !strings.Contains(err.Error(), "statement timeout") || time.Since(start) > 4*time.Second {
		t.Errorf("a slow query: %v after %s, want a statement timeout", err, time.Since(start))
	}
}
