package observe_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/observe"
)

// inside are tenant and key values in a namespace (NS stands for it): the
// namespace itself, longer strings, a byte above ASCII and the last ASCII
// byte after it, and LIKE metacharacters.
var inside = []string{"NSA", "NSk1", "NS", "NS\u00e9", "NS\x7f", "NS%A", "NS_A"}

// neighbours are values just outside namespace ns: shorter, its byte
// successor, and strings a linguistic collation sorts among the namespace's
// (case, punctuation, accents).
func neighbours(ns string) []string {
	succ := ns[:len(ns)-1] + string(ns[len(ns)-1]+1) // its byte successor (ns is ASCII)
	trimmed := ns[:len(ns)-1]
	return []string{
		trimmed, succ, succ + "A", trimmed + "0-A", trimmed + "A", strings.ToUpper(ns) + "A",
		trimmed + " -A", trimmed + "\u2013A", trimmed + "\u00e9A", "x" + ns + "A", trimmed + "\x7f",
	}
}

// values are the tenants and keys of the test rows for namespace ns.
func values(ns string) []string {
	var vs []string
	for _, v := range inside {
		vs = append(vs, strings.ReplaceAll(v, "NS", ns))
	}
	return append(vs, append(neighbours(ns), "other", "", "acme-1")...)
}

// keyLayouts are the keys layout in the collations and index kinds that
// decide whether an index can serve a prefix.
var keyLayouts = []struct {
	name, tenantType, keyType, indexes string
	id                                 string // the tickets id column
}{
	{"C collation, plain indexes", "text", "text",
		"CREATE INDEX ON tickets (tenant, request_key); CREATE INDEX ON tickets (request_key)", "bigserial PRIMARY KEY"},
	{"C collation, tenant index only, serial id", "text", "text",
		"CREATE INDEX ON tickets (tenant, request_key)", "bigserial PRIMARY KEY"},
	{"C collation, tenant index only, explicit ids", "text", "text",
		"CREATE INDEX ON tickets (tenant, request_key)", "bigint PRIMARY KEY"},
	{"linguistic collation, plain indexes", `text COLLATE "en-x-icu"`, `text COLLATE "en-x-icu"`,
		"CREATE INDEX ON tickets (tenant, request_key); CREATE INDEX ON tickets (request_key)", "bigserial PRIMARY KEY"},
	{`linguistic collation, COLLATE "C" indexes`, `text COLLATE "en-x-icu"`, `text COLLATE "en-x-icu"`,
		`CREATE INDEX ON tickets (tenant COLLATE "C"); CREATE INDEX ON tickets (request_key COLLATE "C")`, "bigint PRIMARY KEY"},
	{"linguistic collation, text_pattern_ops", `text COLLATE "en-x-icu"`, `text COLLATE "en-x-icu"`,
		"CREATE INDEX ON tickets (tenant text_pattern_ops); CREATE INDEX ON tickets (request_key text_pattern_ops)", "bigint PRIMARY KEY"},
	{"nondeterministic collation", "text COLLATE ci", "text COLLATE ci",
		"CREATE INDEX ON tickets (tenant); CREATE INDEX ON tickets (request_key)", "bigserial PRIMARY KEY"},
	{"varchar, plain and pattern indexes", "varchar(40)", "varchar(40)",
		"CREATE INDEX ON tickets (tenant); CREATE INDEX ON tickets (request_key varchar_pattern_ops)", "bigserial PRIMARY KEY"},
	{"no indexes", "text", "text", "", "bigint"},
}

type keyRow struct {
	tenant string
	key    *string
}

// TestObserveFindsTheSameRowsInEveryLayout: whatever serves the search (an
// index in a byte-ordered collation, a pattern index, a mark, a scan), the
// rows found are exactly those whose tenant or key starts with the
// namespace, byte for byte: computed here in Go from every row of the table.
// Rows written before Begin are outside (no namespace exists before its
// plan); rows written after it include the namespace only in the key,
// keyless rows, equal rows twice, and every neighbour of the namespace.
func TestObserveFindsTheSameRowsInEveryLayout(t *testing.T) {
	for _, layout := range keyLayouts {
		for _, ns := range []string{"ns1-", "n_1%", "is0a1b2c3d-17-", "ns~"} {
			t.Run(layout.name+"/"+ns, func(t *testing.T) {
				t.Parallel() // a database of its own
				url, _ := newDatabase(t)
				pool := connect(t, url, "")
				exec(t, pool, `CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`)
				exec(t, pool, fmt.Sprintf(`CREATE TABLE tickets (id %s, tenant %s, request_key %s, subject text NOT NULL);
					CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, tenant %s, request_key %s, ticket_id bigint);
					CREATE INDEX ON notification_outbox (tenant);`,
					layout.id, layout.tenantType, layout.keyType, layout.tenantType, layout.keyType))
				if layout.indexes != "" {
					exec(t, pool, layout.indexes)
				}
				effects := []effect.Effect{
					{Table: "tickets", Tenant: "tenant", Key: "request_key", ID: "id", Fields: map[string]string{"subject": "/subject"}},
					{Table: "notification_outbox", Tenant: "tenant", Key: "request_key"},
				}
				vals := values(ns)
				var rows []keyRow
				for _, tenant := range append(vals, "") {
					for _, key := range vals {
						rows = append(rows, keyRow{tenant, &key})
					}
					rows = append(rows, keyRow{tenant, nil})
				}
				// Foreign rows before the plan: none in the namespace.
				var before []keyRow
				for _, r := range rows {
					if !strings.HasPrefix(r.tenant, ns) && (r.key == nil || !strings.HasPrefix(*r.key, ns)) {
						before = append(before, r)
					}
				}
				insertKeyRows(t, pool, before, 1)
				o := observe.NewObserver(pool, effects)
				o.Begin(t.Context(), model.Namespace(ns))
				insertKeyRows(t, pool, rows, 100_000)
				insertKeyRows(t, pool, rows[:3], 200_000) // equal rows again
				want := expectKeyRows(t, pool, ns)
				for name, o := range map[string]*observe.Observer{"after Begin": o, "without Begin": observe.NewObserver(pool, effects)} {
					snap, err := o.Observe(t.Context(), model.Namespace(ns))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for _, table := range []string{"tickets", "notification_outbox"} {
						if got := keyRowStrings(snap[table]); !slices.Equal(got, want[table]) {
							t.Errorf("%s: %s: got %d rows\n%s\nwant %d\n%s", name, table, len(got), strings.Join(got, "\n"), len(want[table]), strings.Join(want[table], "\n"))
						}
					}
				}
			})
		}
	}
}

func insertKeyRows(t *testing.T, pool *pgxpool.Pool, rows []keyRow, firstID int) {
	t.Helper()
	batch := &pgx.Batch{}
	for i, r := range rows {
		batch.Queue(`INSERT INTO tickets (id, tenant, request_key, subject) VALUES ($1, $2, $3, 'Printer offline')`, firstID+i, r.tenant, r.key)
		batch.Queue(`INSERT INTO notification_outbox (tenant, request_key, ticket_id) VALUES ($1, $2, $3)`, r.tenant, r.key, firstID+i)
	}
	if err := pool.SendBatch(t.Context(), batch).Close(); err != nil {
		t.Fatal(err)
	}
}

// expectKeyRows reads every row and keeps, in Go, those whose tenant or
// key starts with ns.
func expectKeyRows(t *testing.T, pool *pgxpool.Pool, ns string) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	for _, table := range []string{"tickets", "notification_outbox"} {
		rows, err := pool.Query(t.Context(), fmt.Sprintf(`SELECT tenant::text, request_key::text FROM %s`, table))
		if err != nil {
			t.Fatal(err)
		}
		var got []model.Row
		for rows.Next() {
			var tenant, key *string
			if err := rows.Scan(&tenant, &key); err != nil {
				t.Fatal(err)
			}
			r := model.Row{KeyNull: key == nil}
			if tenant != nil {
				r.Tenant = *tenant
			}
			if key != nil {
				r.Key = *key
			}
			if strings.HasPrefix(r.Tenant, ns) || strings.HasPrefix(r.Key, ns) {
				got = append(got, r)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		want[table] = keyRowStrings(got)
	}
	return want
}

func keyRowStrings(rows []model.Row) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		key := strconv.Quote(r.Key)
		if r.KeyNull {
			key = "NULL"
		}
		out = append(out, strconv.Quote(r.Tenant)+" "+key)
	}
	slices.Sort(out)
	return out
}

// taggedLayouts are the tagged layout with and without what lets a plan's
// rows be found without a scan.
var taggedLayouts = []struct {
	name, ticketID, outbox, more string
	scanned                      []string // tables Notes says are scanned
}{
	{"serial ids, indexed join", "bigserial PRIMARY KEY", "id bigserial PRIMARY KEY, ticket_id bigint",
		"CREATE INDEX ON notification_outbox (ticket_id)", nil},
	{"serial ids, join by mark", "bigserial PRIMARY KEY", "id bigserial PRIMARY KEY, ticket_id bigint", "", nil},
	{"identity ids, join by mark", "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
		"id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, ticket_id bigint", "", nil},
	{"cached sequence", "bigserial PRIMARY KEY", "id bigserial PRIMARY KEY, ticket_id bigint",
		"ALTER SEQUENCE tickets_id_seq CACHE 20; CREATE INDEX ON notification_outbox (ticket_id)", []string{"tickets"}},
	{"explicit ids, join as text", "bigint PRIMARY KEY", "id bigint, ticket_id text",
		"CREATE SEQUENCE ids; ALTER TABLE tickets ALTER id SET DEFAULT nextval('ids')", []string{"tickets", "notification_outbox"}},
	{"serial without index", "bigserial", "id bigserial, ticket_id bigint", "", []string{"tickets", "notification_outbox"}},
}

// TestObserveTaggedFindsTheSameRowsInEveryLayout: the tag is found inside
// a longer value wherever it is, outbox rows through their ticket, by mark
// or by scan; the same rows as a substring search in Go over every row.
func TestObserveTaggedFindsTheSameRowsInEveryLayout(t *testing.T) {
	for _, layout := range taggedLayouts {
		for _, ns := range []string{"ns1-", "n_1%"} {
			t.Run(layout.name+"/"+ns, func(t *testing.T) {
				t.Parallel() // a database of its own
				url, _ := newDatabase(t)
				pool := connect(t, url, "")
				exec(t, pool, fmt.Sprintf(`CREATE TABLE tickets (id %s, tenant text NOT NULL, subject text NOT NULL);
					CREATE TABLE notification_outbox (%s)`, layout.ticketID, layout.outbox))
				if layout.more != "" {
					exec(t, pool, layout.more)
				}
				effects := taggedEffects()
				var subjects []string
				for _, v := range values(ns) {
					subjects = append(subjects, v+"A.k1.v0", "Printer offline ["+v+"A.k1.v0]", "["+v+"A.k1.v0] #1", v)
				}
				insert := func(subjects []string) {
					batch := &pgx.Batch{}
					for _, s := range subjects {
						batch.Queue(`WITH t AS (INSERT INTO tickets (tenant, subject) OVERRIDING SYSTEM VALUE
								SELECT 'T', $1 RETURNING id)
							INSERT INTO notification_outbox (ticket_id) SELECT id FROM t`, s)
					}
					if err := pool.SendBatch(t.Context(), batch).Close(); err != nil {
						t.Fatal(err)
					}
				}
				var before []string
				for _, s := range subjects {
					if !strings.Contains(s, ns) {
						before = append(before, s)
					}
				}
				insert(before)
				o := observe.NewObserver(pool, effects)
				o.Begin(t.Context(), model.Namespace(ns))
				insert(subjects)
				insert(subjects[:2])
				var wantTickets, wantOutbox []string
				ids := map[string]bool{}
				rows, err := pool.Query(t.Context(), `SELECT id::text, subject FROM tickets`)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var id, subject string
					if err := rows.Scan(&id, &subject); err != nil {
						t.Fatal(err)
					}
					if strings.Contains(subject, ns) {
						wantTickets = append(wantTickets, id+" "+subject)
						ids[id] = true
					}
				}
				rows, err = pool.Query(t.Context(), `SELECT ticket_id::text FROM notification_outbox`)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var id string
					if err := rows.Scan(&id); err != nil {
						t.Fatal(err)
					}
					if ids[id] {
						wantOutbox = append(wantOutbox, id)
					}
				}
				slices.Sort(wantTickets)
				slices.Sort(wantOutbox)
				for name, o := range map[string]*observe.Observer{"after Begin": o, "without Begin": observe.NewObserver(pool, effects)} {
					snap, err := o.Observe(t.Context(), model.Namespace(ns))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					var tickets, outbox []string
					for _, r := range snap["tickets"] {
						tickets = append(tickets, r.ID+" "+r.Tag)
					}
					for _, r := range snap["notification_outbox"] {
						outbox = append(outbox, r.Join)
					}
					slices.Sort(tickets)
					slices.Sort(outbox)
					if !slices.Equal(tickets, wantTickets) {
						t.Errorf("%s: tickets\n%s\nwant\n%s", name, strings.Join(tickets, "\n"), strings.Join(wantTickets, "\n"))
					}
					if !slices.Equal(outbox, wantOutbox) {
						t.Errorf("%s: outbox rows pointing at %q, want %q", name, outbox, wantOutbox)
					}
				}
				var scanned []string
				for _, n := range o.Notes() {
					for _, table := range []string{"tickets", "notification_outbox"} {
						if strings.HasPrefix(n, "observer: "+table+" is scanned whole") {
							scanned = append(scanned, table)
						}
					}
				}
				if !reflect.DeepEqual(scanned, layout.scanned) {
					t.Errorf("tables noted as scanned: %q, want %q; notes:\n%s", scanned, layout.scanned, strings.Join(o.Notes(), "\n"))
				}
			})
		}
	}
}

// explain returns the plan PostgreSQL chooses for q: with its arguments
// bound (a custom plan, what runs), or, generic, as a prepared statement
// planned without them.
func explain(t *testing.T, pool *pgxpool.Pool, q observe.Query, generic bool) string {
	t.Helper()
	ctx := t.Context()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var rows pgx.Rows
	if generic {
		lits := make([]string, len(q.Args))
		for i, a := range q.Args {
			switch v := a.(type) {
			case string:
				lits[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
			default:
				lits[i] = fmt.Sprint(v)
			}
		}
		if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan; PREPARE q AS "+q.SQL); err != nil {
			t.Fatal(err)
		}
		defer conn.Exec(context.Background(), "DEALLOCATE q; RESET plan_cache_mode") //nolint:errcheck
		rows, err = conn.Query(ctx, "EXPLAIN EXECUTE q("+strings.Join(lits, ", ")+")", pgx.QueryExecModeSimpleProtocol)
	} else {
		rows, err = conn.Query(ctx, "EXPLAIN "+q.SQL, q.Args...)
	}
	if err != nil {
		t.Fatalf("%v\nin: %s", err, q.SQL)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// usesIndex says whether an EXPLAIN output scans index idx.
func usesIndex(plan, idx string) bool {
	return strings.Contains(plan, " using "+idx+" on ") || strings.Contains(plan, "Bitmap Index Scan on "+idx+" ")
}

// TestObserveUsesTheIndexes asks PostgreSQL (EXPLAIN, on tables of 20000
// foreign rows, analysed) how it runs Observe's statements: through the
// indexes the table has, never by a scan of the whole table.
func TestObserveUsesTheIndexes(t *testing.T) {
	for _, layout := range []struct {
		name, schema, fill string
		effects            []effect.Effect
		// uses are the indexes each table's statement must use.
		uses map[string][]string
	}{
		{"keys", `
			CREATE TABLE tickets (id bigserial PRIMARY KEY, tenant text NOT NULL, request_key text NOT NULL, subject text NOT NULL, UNIQUE (tenant, request_key));
			CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, tenant text NOT NULL, request_key text NOT NULL, ticket_id bigint NOT NULL REFERENCES tickets (id));
			CREATE INDEX notification_outbox_tenant_request_key_idx ON notification_outbox (tenant, request_key)`, `
			INSERT INTO tickets (tenant, request_key, subject) SELECT 'acme-' || (g % 97), 'req-' || g, 'Printer offline' FROM generate_series(1, 20000) g;
			INSERT INTO notification_outbox (tenant, request_key, ticket_id) SELECT tenant, request_key, id FROM tickets`,
			sampleEffects(),
			map[string][]string{"tickets": {"tickets_tenant_request_key_key", "tickets_pkey"},
				"notification_outbox": {"notification_outbox_tenant_request_key_idx", "notification_outbox_pkey"}}},
		{"keys, linguistic collation, COLLATE C indexes", `
			CREATE TABLE tickets (id bigint PRIMARY KEY, tenant text COLLATE "en-x-icu" NOT NULL, request_key text COLLATE "en-x-icu", subject text NOT NULL);
			CREATE INDEX tickets_tenant_c ON tickets (tenant COLLATE "C");
			CREATE INDEX tickets_key_pattern ON tickets (request_key text_pattern_ops);
			CREATE INDEX tickets_tenant_icu ON tickets (tenant);
			CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, tenant text COLLATE "en-x-icu" NOT NULL, request_key text COLLATE "en-x-icu", ticket_id bigint);
			CREATE INDEX notification_outbox_tenant_c ON notification_outbox (tenant COLLATE "C");
			CREATE INDEX notification_outbox_key_c ON notification_outbox (request_key COLLATE "C")`, `
			INSERT INTO tickets (id, tenant, request_key, subject) SELECT g, 'acme-' || (g % 97), 'req-' || g, 'Printer offline' FROM generate_series(1, 20000) g;
			INSERT INTO notification_outbox (tenant, request_key, ticket_id) SELECT tenant, request_key, id FROM tickets`,
			sampleEffects(),
			map[string][]string{"tickets": {"tickets_tenant_c", "tickets_key_pattern"},
				"notification_outbox": {"notification_outbox_tenant_c", "notification_outbox_key_c"}}},
		{"tagged", `
			CREATE TABLE tickets (id bigserial PRIMARY KEY, tenant text NOT NULL, subject text NOT NULL);
			CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, ticket_id bigint NOT NULL REFERENCES tickets (id));
			CREATE INDEX notification_outbox_ticket_id_idx ON notification_outbox (ticket_id)`, `
			INSERT INTO tickets (tenant, subject) SELECT 'acme-' || (g % 97), 'Printer offline [acme-' || g || '.k.v0]' FROM generate_series(1, 20000) g;
			INSERT INTO notification_outbox (ticket_id) SELECT id FROM tickets`,
			taggedEffects(),
			map[string][]string{"tickets": {"tickets_pkey"}, "notification_outbox": {"notification_outbox_ticket_id_idx", "tickets_pkey"}}},
		{"tagged, join by mark", `
			CREATE TABLE tickets (id bigserial PRIMARY KEY, tenant text NOT NULL, subject text NOT NULL);
			CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, ticket_id bigint NOT NULL)`, `
			INSERT INTO tickets (tenant, subject) SELECT 'acme-' || (g % 97), 'Printer offline [acme-' || g || '.k.v0]' FROM generate_series(1, 20000) g;
			INSERT INTO notification_outbox (ticket_id) SELECT id FROM tickets`,
			taggedEffects(),
			map[string][]string{"tickets": {"tickets_pkey"}, "notification_outbox": {"notification_outbox_pkey", "tickets_pkey"}}},
	} {
		t.Run(layout.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			url, _ := newDatabase(t)
			pool := connect(t, url, "")
			exec(t, pool, layout.schema)
			exec(t, pool, layout.fill)
			exec(t, pool, "VACUUM ANALYZE tickets, notification_outbox")
			o := observe.NewObserver(pool, layout.effects)
			ns := model.Namespace("is0a1b2c3d-7-")
			o.Begin(t.Context(), ns)
			for table, q := range observe.ObserveQueries(t.Context(), o, ns) {
				plan := explain(t, pool, q, false)
				if strings.Contains(plan, "Seq Scan") {
					t.Errorf("%s: a scan of a whole table:\n%s\nfor: %s", table, plan, q.SQL)
				}
				for _, idx := range layout.uses[table] {
					if !usesIndex(plan, idx) {
						t.Errorf("%s: %s not used:\n%s\nfor: %s", table, idx, plan, q.SQL)
					}
				}
			}
			// Observe runs generic plans, planned without the namespace:
			// they too use the indexes.
			for table, q := range observe.ObserveQueries(t.Context(), o, ns) {
				plan := explain(t, pool, q, true)
				if strings.Contains(plan, "Seq Scan") {
					t.Errorf("%s, generic plan: a scan of a whole table:\n%s\nfor: %s", table, plan, q.SQL)
				}
				for _, idx := range layout.uses[table] {
					if !usesIndex(plan, idx) {
						t.Errorf("%s, generic plan: %s not used:\n%s\nfor: %s", table, idx, plan, q.SQL)
					}
				}
			}
		})
	}
}
