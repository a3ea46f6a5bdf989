package observe_test

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/observe"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// cluster is the one throwaway PostgreSQL of this package's tests, started
// by the first test that needs a database (pgtest.Main); the verdict tests
// need none.
var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

var dbSeq atomic.Int64

// newDatabase creates an empty database and returns its URL and name.
func newDatabase(t *testing.T) (url, name string) {
	t.Helper()
	c := pgtest.Cluster(t, cluster)
	name = fmt.Sprintf("checks_%d", dbSeq.Add(1))
	url, err := c.CreateDatabase(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return url, name
}

// connect opens a pool as user ("" keeps the URL's superuser).
func connect(t *testing.T, url, user string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		cfg.ConnConfig.User = user
	}
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func exec(t *testing.T, pool *pgxpool.Pool, sql string) {
	t.Helper()
	if _, err := pool.Exec(t.Context(), sql); err != nil {
		t.Fatalf("%v\nin: %s", err, sql)
	}
}

// sampleSchema is the sample service's two effect tables, with nullable key
// and reference so a keyless row and a dangling outbox row can exist.
const sampleSchema = `
CREATE TABLE tickets (
	id          bigint PRIMARY KEY,
	tenant      text NOT NULL,
	request_key text,
	subject     text NOT NULL
);
CREATE TABLE notification_outbox (
	id          bigserial PRIMARY KEY,
	tenant      text NOT NULL,
	request_key text,
	ticket_id   bigint REFERENCES tickets (id)
);`

// sampleRows are rows of namespace ns1- (complete, keyless, dangling,
// half-foreign) and of its neighbours ns2- and ns10-, which Observe must
// leave out.
const sampleRows = `
INSERT INTO tickets (id, tenant, request_key, subject) VALUES
	(7,  'ns1-A',   'ns1-k1',   'Printer offline'),
	(8,  'ns1-A',   NULL,       'Printer offline'),
	(9,  'ns1-B',   'ns1-k2',   'Printer offline #1'),
	(13, 'ns1-A',   'other-k3', 'Printer offline'),
	(14, 'other-C', 'ns1-k4',   'Printer offline'),
	(10, 'ns2-A',   'ns2-k1',   'Printer offline'),
	(11, 'ns10-A',  'ns10-k1',  'Printer offline');
INSERT INTO notification_outbox (tenant, request_key, ticket_id) VALUES
	('ns1-A', 'ns1-k1', 7),
	('ns1-B', 'ns1-k2', NULL),
	('ns2-A', 'ns2-k1', 10);`

// sampleDB is a database holding the sample schema and rows.
func sampleDB(t *testing.T) (url, name string, pool *pgxpool.Pool) {
	t.Helper()
	url, name = newDatabase(t)
	pool = connect(t, url, "")
	exec(t, pool, sampleSchema)
	exec(t, pool, sampleRows)
	return url, name, pool
}

// wantSample is what Observe must read of sampleRows in namespace ns1-.
func wantSample() model.Snapshot {
	subject := func(s string) map[string]string { return map[string]string{"subject": s} }
	return model.Snapshot{
		"tickets": {
			{Tenant: "ns1-A", Key: "ns1-k1", ID: "7", Fields: subject("Printer offline")},
			{Tenant: "ns1-A", KeyNull: true, ID: "8", Fields: subject("Printer offline")},
			{Tenant: "ns1-A", Key: "other-k3", ID: "13", Fields: subject("Printer offline")},
			{Tenant: "ns1-B", Key: "ns1-k2", ID: "9", Fields: subject("Printer offline #1")},
			{Tenant: "other-C", Key: "ns1-k4", ID: "14", Fields: subject("Printer offline")},
		},
		"notification_outbox": {
			{Tenant: "ns1-A", Key: "ns1-k1", Ref: "7"},
			{Tenant: "ns1-B", Key: "ns1-k2", RefNull: true},
		},
	}
}

// sorted orders each table's rows; Observe promises no order.
func sorted(s model.Snapshot) model.Snapshot {
	for _, rows := range s {
		slices.SortFunc(rows, func(a, b model.Row) int {
			return cmp.Or(cmp.Compare(a.Tenant, b.Tenant), cmp.Compare(a.Key, b.Key), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Ref, b.Ref))
		})
	}
	return s
}

func dumpSnapshot(s model.Snapshot) string {
	var b strings.Builder
	for _, table := range slices.Sorted(func(yield func(string) bool) {
		for k := range s {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, r := range s[table] {
			fmt.Fprintf(&b, "  %s: %+v\n", table, r)
		}
	}
	return b.String()
}

func observeNS(t *testing.T, pool *pgxpool.Pool, effects []effect.Effect, ns model.Namespace) model.Snapshot {
	t.Helper()
	snap, err := observe.NewObserver(pool, effects).Observe(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return sorted(snap)
}

func TestObserveReadsExactlyTheNamespace(t *testing.T) {
	_, _, pool := sampleDB(t)
	got := observeNS(t, pool, sampleEffects(), "ns1-")
	if want := sorted(wantSample()); !reflect.DeepEqual(got, want) {
		t.Errorf("Observe(ns1-) =\n%swant\n%s", dumpSnapshot(got), dumpSnapshot(want))
	}
}

// TestObserveMatchesThePrefixLiterally: a namespace is a plain prefix, not
// a LIKE pattern, so _ and % in it match only themselves.
func TestObserveMatchesThePrefixLiterally(t *testing.T) {
	_, _, pool := sampleDB(t)
	exec(t, pool, `INSERT INTO tickets (id, tenant, request_key, subject) VALUES
		(20, 'n_1%A',  'n_1%k1',  'Printer offline'),
		(21, 'nx1yA',  'nx1yk1',  'Printer offline'),
		(22, 'n_1%%A', 'n_1%%k1', 'Printer offline')`)
	got := observeNS(t, pool, sampleEffects(), "n_1%")
	subject := map[string]string{"subject": "Printer offline"}
	want := sorted(model.Snapshot{
		"tickets": {
			{Tenant: "n_1%A", Key: "n_1%k1", ID: "20", Fields: subject},
			{Tenant: "n_1%%A", Key: "n_1%%k1", ID: "22", Fields: subject}, // logical tenant "%A"
		},
		"notification_outbox": nil,
	})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Observe(n_1%%) =\n%swant\n%s", dumpSnapshot(got), dumpSnapshot(want))
	}
}

// TestObservedRowsFeedEvaluate: what the observer reads is what the
// verdicts expect (a bigint ID read as text equals the ID in an answer).
func TestObservedRowsFeedEvaluate(t *testing.T) {
	_, _, pool := sampleDB(t)
	// Only A/k1 is called: keep only its rows in the namespace.
	exec(t, pool, `DELETE FROM notification_outbox WHERE request_key IS DISTINCT FROM 'ns1-k1';
		DELETE FROM tickets WHERE id <> 7`)
	c := model.Call{Tenant: "A", Key: "k1"}
	body := payloads.RenderPayload(model.DefaultContract().Payload, 0, 0)
	answer := model.Outcome{Kind: model.OK, Status: 201, ID: "7"}
	h := model.History{Ops: []model.Op{{Step: 0, Call: c, Body: body, Start: 0, End: 50, Out: answer}, {Step: 1, Call: c, Body: body, Start: 100, End: 150, Out: answer}}}
	judge := func() []checks.Violation {
		snap := observeNS(t, pool, sampleEffects(), "ns1-")
		return checks.Evaluate(checks.Input{Contract: model.DefaultContract(), Effects: sampleEffects(), NS: "ns1-", History: h, Rows: snap})
	}
	if vs := judge(); len(vs) != 0 {
		t.Fatalf("correct rows judged wrong:\n%v", vs)
	}
	exec(t, pool, `INSERT INTO notification_outbox (tenant, request_key, ticket_id) VALUES ('ns1-A', 'ns1-k1', 7)`)
	if vs := judge(); len(vs) == 0 || vs[0].Check != checks.DuplicateEffect {
		t.Fatalf("second outbox row: want %s first, got:\n%v", checks.DuplicateEffect, vs)
	}
}

func TestValidate(t *testing.T) {
	_, _, pool := sampleDB(t)
	with := func(change func(e []effect.Effect)) []effect.Effect {
		e := sampleEffects()
		change(e)
		return e
	}
	const ticketColumns = "(columns: id, tenant, request_key, subject)"
	cases := []struct {
		name    string
		effects []effect.Effect
		want    []string // phrases of the error; none: Validate passes
	}{
		{name: "declared schema", effects: sampleEffects()},
		{name: "schema-qualified table", effects: with(func(e []effect.Effect) { e[0].Table = "public.tickets"; e[1].References.Table = "public.tickets" })},
		{name: "missing table", effects: with(func(e []effect.Effect) { e[1].Table = "outbox" }),
			want: []string{`effects[1].table`, `table "outbox" not found`, "(tables: notification_outbox, tickets)"}},
		{name: "missing schema", effects: with(func(e []effect.Effect) { e[0].Table = "billing.tickets" }),
			want: []string{`table "billing.tickets" not found`, "(tables: none)"}},
		{name: "missing key column", effects: with(func(e []effect.Effect) { e[0].Key = "idempotency_key" }),
			want: []string{`effects[0].key`, `column "idempotency_key" not found in table "tickets"`, ticketColumns}},
		{name: "missing tenant column", effects: with(func(e []effect.Effect) { e[0].Tenant = "tenant_id" }),
			want: []string{`effects[0].tenant`, `column "tenant_id"`, ticketColumns}},
		{name: "missing id column", effects: with(func(e []effect.Effect) { e[0].ID = "ticket_id" }),
			want: []string{`effects[0].id`, `column "ticket_id"`, ticketColumns}},
		{name: "missing field column", effects: with(func(e []effect.Effect) { e[0].Fields = map[string]string{"title": "/subject"} }),
			want: []string{`effects[0].fields.title`, `column "title"`, ticketColumns}},
		{name: "missing reference column", effects: with(func(e []effect.Effect) { e[1].References.Column = "ticket" }),
			want: []string{`effects[1].references.column`, `column "ticket" not found in table "notification_outbox"`,
				"(columns: id, tenant, request_key, ticket_id)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := observe.NewObserver(pool, tc.effects).Validate(t.Context())
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate passed; want an error")
			}
			if !errors.Is(err, observe.ErrSchema) {
				t.Errorf("error is not observe.ErrSchema: %v", err)
			}
			for _, phrase := range tc.want {
				if !strings.Contains(err.Error(), phrase) {
					t.Errorf("error does not say %q:\n%v", phrase, err)
				}
			}
		})
	}
}

// newReader creates a login role that may only SELECT the named relations.
func newReader(t *testing.T, url, db string, admin *pgxpool.Pool, relations ...string) *pgxpool.Pool {
	t.Helper()
	// Roles are cluster-wide: one per database keeps tests apart.
	role := pgx.Identifier{"reader_" + db}.Sanitize()
	exec(t, admin, "CREATE ROLE "+role+" LOGIN")
	for _, rel := range relations {
		exec(t, admin, "GRANT SELECT ON "+pgx.Identifier{rel}.Sanitize()+" TO "+role)
	}
	return connect(t, url, "reader_"+db)
}

// TestObserverNeedsOnlySelect: a role that may do nothing but SELECT the
// two effect tables can validate and observe.
func TestObserverNeedsOnlySelect(t *testing.T) {
	url, db, admin := sampleDB(t)
	reader := newReader(t, url, db, admin, "tickets", "notification_outbox")
	// The reader really cannot write: the check below would prove nothing
	// if it could.
	if _, err := reader.Exec(t.Context(), `DELETE FROM tickets`); !isCode(err, "42501") {
		t.Fatalf("reader deleting rows: want insufficient_privilege, got %v", err)
	}
	o := observe.NewObserver(reader, sampleEffects())
	if err := o.Validate(t.Context()); err != nil {
		t.Fatalf("Validate as reader: %v", err)
	}
	snap, err := o.Observe(t.Context(), "ns1-")
	if err != nil {
		t.Fatalf("Observe as reader: %v", err)
	}
	if got, want := sorted(snap), sorted(wantSample()); !reflect.DeepEqual(got, want) {
		t.Errorf("Observe as reader =\n%swant\n%s", dumpSnapshot(got), dumpSnapshot(want))
	}
}

// TestObserveTransactionIsReadOnlyRepeatableRead asks the server, from
// inside the observer's own transaction, which mode it runs in: a view
// over tickets exposes the transaction's settings as columns, and the
// observer reads them as fields.
func TestObserveTransactionIsReadOnlyRepeatableRead(t *testing.T) {
	url, db, admin := sampleDB(t)
	exec(t, admin, `CREATE VIEW tickets_probe AS
		SELECT tenant, request_key, id,
			current_setting('transaction_read_only') AS read_only,
			current_setting('transaction_isolation') AS isolation
		FROM tickets`)
	reader := newReader(t, url, db, admin, "tickets_probe")
	probe := []effect.Effect{{Table: "tickets_probe", Tenant: "tenant", Key: "request_key", ID: "id",
		Fields: map[string]string{"read_only": "/unused", "isolation": "/unused"}}}
	for _, pool := range []*pgxpool.Pool{admin, reader} {
		snap := observeNS(t, pool, probe, "ns1-")
		if len(snap["tickets_probe"]) == 0 {
			t.Fatal("the probe read no rows")
		}
		for _, r := range snap["tickets_probe"] {
			if r.Fields["read_only"] != "on" || r.Fields["isolation"] != "repeatable read" {
				t.Fatalf("observer's transaction: transaction_read_only=%q transaction_isolation=%q; want on, repeatable read",
					r.Fields["read_only"], r.Fields["isolation"])
			}
		}
	}
	// The probe can tell: outside such a transaction it reads otherwise.
	var readOnly string
	if err := admin.QueryRow(t.Context(), `SELECT read_only FROM tickets_probe LIMIT 1`).Scan(&readOnly); err != nil || readOnly != "off" {
		t.Fatalf("probe in a plain transaction: read_only=%q, err %v; want off", readOnly, err)
	}
}

// TestObserveCannotWrite: reading a view whose column writes a row is
// refused by the server inside the observer's transaction, even for a
// superuser; the same read in a plain transaction writes.
func TestObserveCannotWrite(t *testing.T) {
	_, _, admin := sampleDB(t)
	exec(t, admin, `CREATE TABLE reads_log (at timestamptz NOT NULL DEFAULT now());
		CREATE FUNCTION note_read() RETURNS text LANGUAGE sql VOLATILE AS
			$$ INSERT INTO reads_log DEFAULT VALUES RETURNING 'noted' $$;
		CREATE VIEW tickets_noisy AS SELECT tenant, request_key, id, note_read() AS noted FROM tickets`)
	noisy := []effect.Effect{{Table: "tickets_noisy", Tenant: "tenant", Key: "request_key", ID: "id",
		Fields: map[string]string{"noted": "/unused"}}}
	_, err := observe.NewObserver(admin, noisy).Observe(t.Context(), "ns1-")
	if !isCode(err, "25006") {
		t.Fatalf("Observe of a writing view: want read_only_sql_transaction (25006), got %v", err)
	}
	count := func() (n int) {
		if err := admin.QueryRow(t.Context(), `SELECT count(*) FROM reads_log`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("%d row(s) written during Observe", n)
	}
	exec(t, admin, `SELECT noted FROM tickets_noisy WHERE starts_with(tenant, 'ns1-')`)
	if count() == 0 {
		t.Fatal("the view did not write outside the observer: the test above proves nothing")
	}
}

func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}

// sampleEffects are the effect tables of examples/ticketsvc.
func sampleEffects() []effect.Effect {
	return []effect.Effect{
		{Table: "tickets", Tenant: "tenant", Key: "request_key", ID: "id", PerAction: 1,
			Fields: map[string]string{"subject": "/subject"}},
		{Table: "notification_outbox", Tenant: "tenant", Key: "request_key", PerAction: 1,
			References: &effect.Reference{Column: "ticket_id", Table: "tickets"}},
	}
}
