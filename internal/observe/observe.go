package observe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// ErrSchema marks a declared table or column that the database does not have.
var ErrSchema = errors.New("effect tables do not match the contract")

// Observer reads effect tables. It only ever reads: every observation is
// one READ ONLY REPEATABLE READ transaction, so it sees one consistent
// moment and could not write if it tried.
//
// Its methods may be called from several goroutines.
type Observer struct {
	pool    *pgxpool.Pool
	effects []effect.Effect
	// Contract says how a namespace stands in the keys, tenants and tags
	// (its identifier formats and fixed tenants); the zero value: as the
	// namespace itself, in keys and tenants alike.
	Contract model.Contract
	// BaselineBudget bounds one Baseline call (default 30s; less when the
	// context ends sooner): a table not
	// fingerprinted by then is left out, and Notes says so.
	BaselineBudget time.Duration
	// StatementTimeout bounds each statement of a read (default 30s): a
	// query: effect that never ends (a pg_sleep, a lock it waits on) fails
	// the observation instead of hanging the run. The baseline's statements
	// have its budget instead.
	StatementTimeout time.Duration

	mu sync.Mutex
	// info is what the catalog says about each table, read once (nil
	// until then).
	info map[string]*tableInfo
	// planMarks are the marks read by Begin, for the last maxPlanMarks
	// namespaces, oldest first in planOrder.
	planMarks map[model.Namespace]marks
	planOrder []model.Namespace
	// latest are the marks the last Observe read in its own transaction
	// (nil until one has): Begin takes them instead of reading its own.
	latest marks
	// runs are the runs whose baseline was taken, by prefix.
	runs  map[model.Namespace]*runState
	notes []string
}

// maxPlanMarks bounds the marks kept: a namespace is observed right after
// its plan ran, so only the last few are ever asked for. An older one is
// observed with its run's marks, or by a scan: more reading, the same rows.
const maxPlanMarks = 64

// NewObserver returns an observer of the declared effects.
func NewObserver(pool *pgxpool.Pool, effects []effect.Effect) *Observer {
	return &Observer{pool: pool, effects: effects, BaselineBudget: 30 * time.Second, StatementTimeout: 30 * time.Second,
		planMarks: map[model.Namespace]marks{}, runs: map[model.Namespace]*runState{}}
}

// DB is the pool the observer reads with.
func (o *Observer) DB() *pgxpool.Pool { return o.pool }

// Validate checks that every declared table and column exists, and says
// what exists instead when one does not.
func (o *Observer) Validate(ctx context.Context) error {
	for i, e := range o.effects {
		cols, err := o.columns(ctx, i, e)
		if err != nil {
			return err
		}
		named := map[string]string{"tenant": e.Tenant, "key": e.Key, "id": e.ID, "tag": e.Tag}
		if e.References != nil {
			named["references.column"] = e.References.Column
		}
		if e.Join != nil {
			named["join.column"] = e.Join.Column
		}
		for col := range e.Fields {
			named["fields."+col] = col
		}
		what := fmt.Sprintf("table %q", e.Table)
		if e.Query != "" {
			what = fmt.Sprintf("the result of query %q", e.Table)
		}
		for _, field := range sortedKeys(named) {
			col := named[field]
			if col != "" && !slices.Contains(cols, col) {
				return fmt.Errorf("%w: effects[%d].%s: column %q not found in %s (columns: %s)", ErrSchema, i, field, col, what, strings.Join(cols, ", "))
			}
		}
	}
	return nil
}

// columns lists the columns of an effect's table, or of its query's result.
func (o *Observer) columns(ctx context.Context, i int, e effect.Effect) ([]string, error) {
	if e.Query != "" {
		// The user's SQL, even to learn its columns, runs read-only.
		var cols []string
		err := o.readOnly(ctx, func(tx pgx.Tx, _ map[string]effect.Effect) error {
			rows, err := tx.Query(ctx, "SELECT * FROM ("+e.Query+") AS q LIMIT 0", "")
			if err != nil {
				return err
			}
			for _, f := range rows.FieldDescriptions() {
				cols = append(cols, f.Name)
			}
			rows.Close()
			return rows.Err()
		})
		if err != nil {
			return nil, fmt.Errorf("%w: effects[%d].query (%s): %v", ErrSchema, i, e.Table, err)
		}
		return cols, nil
	}
	schema, table := splitName(e.Table)
	rows, err := o.pool.Query(ctx, `SELECT column_name::text FROM information_schema.columns
		WHERE table_schema = coalesce($1, current_schema()) AND table_name = $2 ORDER BY ordinal_position`, schema, table)
	var cols []string
	if err == nil {
		cols, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		return nil, fmt.Errorf("effects[%d] (%s): reading its columns from information_schema: %w", i, e.Table, err)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("%w: effects[%d].table: table %q not found or not readable (tables: %s)", ErrSchema, i, e.Table, o.tables(ctx, schema))
	}
	return cols, nil
}

func (o *Observer) tables(ctx context.Context, schema *string) string {
	rows, err := o.pool.Query(ctx, `SELECT table_name::text FROM information_schema.tables
		WHERE table_schema = coalesce($1, current_schema()) ORDER BY table_name`, schema)
	if err != nil {
		return "unknown: " + err.Error()
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "unknown: " + err.Error()
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Observe reads every row of every effect table that belongs to the
// namespace: by a tenant or key with its prefix, by a tag inside it, or by
// pointing at such a row. What it reads follows what the plan wrote when
// the tables have the indexes Indexes names, and Begin was called before
// the plan's first call (see access.go).
func (o *Observer) Observe(ctx context.Context, ns model.Namespace) (model.Snapshot, error) {
	info := o.prepare(ctx)
	batch, setup, next := o.readBatch(info, o.marksFor(ns), ns)
	br := o.pool.SendBatch(ctx, batch)
	defer br.Close()
	snap, err := o.readSnapshot(br, setup, next)
	if err != nil {
		return nil, err
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	if next != nil {
		o.mu.Lock()
		o.latest = next.marks()
		o.mu.Unlock()
	}
	return snap, nil
}

// readBatch is Observe's whole read-only transaction as one batch, BEGIN
// to COMMIT pipelined: per plan, round trips to the database were the
// tester's largest cost of its own. A connection an error leaves inside
// the transaction is closed by the pool, not reused. It returns how many
// setup statements come before the effects' queries, and the query for
// the marks of the plans that begin after this read (Begin), if one is
// needed, queued after them.
func (o *Observer) readBatch(info map[string]*tableInfo, m marks, ns model.Namespace) (*pgx.Batch, int, *marksQuery) {
	// The statements are the same for every plan, and what they read is a
	// plan's worth of rows: plan them once. A custom plan (what PostgreSQL
	// otherwise picks, its estimates for the namespace being far lower than
	// for any) costs more to make than to run.
	const generic = "SET LOCAL plan_cache_mode = force_generic_plan"
	batch := &pgx.Batch{}
	setup := append([]string{beginReadOnly}, o.setLocals()...)
	for _, stmt := range append(setup, generic) {
		batch.Queue(stmt)
	}
	byTable := o.byTable()
	for _, e := range o.effects {
		f := newFinder(o.Contract, info, byTable, m, ns)
		cols, _ := rowCols(e)
		batch.Queue(rowsQuery(e, f, strings.Join(cols, ", ")), f.a.vals...)
	}
	next := o.marksRead(info, true)
	if next != nil {
		batch.Queue(next.sql)
	}
	batch.Queue("COMMIT")
	return batch, len(setup) + 1, next
}

// readSnapshot reads readBatch's results in the order they were queued:
// the setup statements, each effect table's rows, the marks into next,
// and the COMMIT.
func (o *Observer) readSnapshot(br pgx.BatchResults, setup int, next *marksQuery) (model.Snapshot, error) {
	for range setup {
		if _, err := br.Exec(); err != nil {
			return nil, fmt.Errorf("observer: starting a read-only transaction: %w", err)
		}
	}
	snap := model.Snapshot{}
	for _, e := range o.effects {
		rows, err := readRows(br, e)
		if err != nil {
			return nil, fmt.Errorf("observer: reading %s: %w", e.Table, err)
		}
		snap[e.Table] = rows
	}
	if next != nil {
		if err := br.QueryRow().Scan(next.dest...); err != nil {
			return nil, fmt.Errorf("observer: reading the marks: %w", err)
		}
	}
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("observer: ending the read: %w", err)
	}
	return snap, nil
}

// Begin marks where a plan's rows will begin: for every table whose rows
// are found by a mark (see markColumn), the greatest id there before the
// plan in namespace ns makes its first call. Observe(ns) then reads only
// the rows written since. Without Begin, Observe uses the marks of the run
// ns belongs to (taken by Baseline), or searches whole tables: more
// reading, the same rows. Begin never fails: when the marks cannot be
// read, Observe falls back the same way.
//
// Every Observe reads the marks too, at the end of its transaction: those
// were read before Begin is called, so before the plan's first call, and
// are as good a mark for it. Begin takes the latest of them and costs no
// round trip; it reads its own only before the first Observe. (A mark
// read earlier than need be only means reading a few more rows, of other
// namespaces, which the namespace's condition then leaves out.)
func (o *Observer) Begin(ctx context.Context, ns model.Namespace) {
	o.mu.Lock()
	m := o.latest
	o.mu.Unlock()
	if m == nil {
		var err error
		if m, err = o.readMarks(ctx, o.prepare(ctx), true); err != nil || m == nil {
			return
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.planMarks[ns]; !ok {
		o.planOrder = append(o.planOrder, ns)
	}
	o.planMarks[ns] = m
	for len(o.planOrder) > maxPlanMarks {
		delete(o.planMarks, o.planOrder[0])
		o.planOrder = o.planOrder[1:]
	}
}

// marksQuery is the statement that reads the marks of the tables whose
// rows are found by one, and where its row goes.
type marksQuery struct {
	tables []string
	sql    string
	vals   []*int64
	dest   []any
}

// marksRead is the statement that reads max(mark column) of the tables
// that have one (only of those whose rows are found by it, when needed is
// set); nil when there are none.
func (o *Observer) marksRead(info map[string]*tableInfo, needed bool) *marksQuery {
	q := &marksQuery{}
	var cols []string
	byTable := o.byTable()
	for _, e := range o.effects {
		t := info[e.Table]
		// Any ASCII namespace gives the same answer.
		f := newFinder(o.Contract, info, byTable, nil, "x-")
		if t == nil || t.mark == nil || e.Query != "" || needed && !f.needsMark(e) {
			continue
		}
		q.tables = append(q.tables, e.Table)
		cols = append(cols, fmt.Sprintf("(SELECT max(%s) FROM %s)::bigint", ident(t.mark.name), ident(e.Table)))
	}
	if len(q.tables) == 0 {
		return nil
	}
	q.sql = "SELECT " + strings.Join(cols, ", ")
	q.vals = make([]*int64, len(q.tables))
	q.dest = make([]any, len(q.tables))
	for i := range q.vals {
		q.dest[i] = &q.vals[i]
	}
	return q
}

// marks are the values the statement read, by table.
func (q *marksQuery) marks() marks {
	m := marks{}
	for i, t := range q.tables {
		m[t] = q.vals[i]
	}
	return m
}

// readMarks reads the marks of marksRead in a read-only transaction of
// their own; nil when there are none.
func (o *Observer) readMarks(ctx context.Context, info map[string]*tableInfo, needed bool) (marks, error) {
	q := o.marksRead(info, needed)
	if q == nil {
		return nil, nil
	}
	// One round trip: the transaction's statements pipelined. A connection
	// left in the transaction by an error is closed by the pool, not reused.
	batch := &pgx.Batch{}
	batch.Queue(beginReadOnly)
	batch.Queue(q.sql).QueryRow(func(row pgx.Row) error { return row.Scan(q.dest...) })
	batch.Queue("COMMIT")
	if err := o.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("observer: reading the marks: %w", err)
	}
	return q.marks(), nil
}

// marksFor returns the marks to observe ns with: its plan's, else its
// run's, else none.
func (o *Observer) marksFor(ns model.Namespace) marks {
	o.mu.Lock()
	defer o.mu.Unlock()
	if m, ok := o.planMarks[ns]; ok {
		return m
	}
	for prefix, r := range o.runs {
		if strings.HasPrefix(string(ns), string(prefix)) {
			return r.marks
		}
	}
	return nil
}

// prepare reads the catalog once, for every effect table. A table it
// cannot read is searched by scans, and Notes says why.
func (o *Observer) prepare(ctx context.Context) map[string]*tableInfo {
	o.mu.Lock()
	if o.info != nil {
		defer o.mu.Unlock()
		return o.info
	}
	o.mu.Unlock()
	info := map[string]*tableInfo{}
	var notes []string
	err := o.readOnly(ctx, func(tx pgx.Tx, _ map[string]effect.Effect) error {
		for _, e := range o.effects {
			if e.Query != "" {
				continue
			}
			t, err := inspect(ctx, tx, e)
			if err != nil {
				return fmt.Errorf("%s: %w", e.Table, err)
			}
			info[e.Table] = t
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return map[string]*tableInfo{} // try again next time
		}
		notes = append(notes, fmt.Sprintf("observer: reading the catalog failed (%v): every plan scans every effect table", err))
		info = map[string]*tableInfo{}
	}
	byTable := o.byTable()
	for _, e := range o.effects {
		if n := scanNote(o.Contract, e, info, byTable); n != "" {
			notes = append(notes, n)
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.info == nil {
		o.info = info
		o.notes = append(o.notes, notes...)
	}
	return o.info
}

// Notes says where the observer had to do more than a plan's worth of
// reading (a table scanned for every plan, and why), and what the baseline
// left out or could not compare. Each note once, in the order they came.
func (o *Observer) Notes() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.notes)
}

func (o *Observer) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	o.mu.Lock()
	defer o.mu.Unlock()
	if !slices.Contains(o.notes, n) {
		o.notes = append(o.notes, n)
	}
}

func (o *Observer) byTable() map[string]effect.Effect {
	byTable := map[string]effect.Effect{}
	for _, e := range o.effects {
		byTable[e.Table] = e
	}
	return byTable
}

// beginReadOnly starts every transaction of the observer.
const beginReadOnly = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

// setLocals are the settings of every read-only transaction, one
// statement each.
func (o *Observer) setLocals() []string {
	if o.StatementTimeout <= 0 {
		return nil
	}
	return []string{"SET LOCAL statement_timeout = " + strconv.FormatInt(max(o.StatementTimeout.Milliseconds(), 1), 10)}
}

// readOnly runs read in one READ ONLY REPEATABLE READ transaction, so it
// sees one consistent moment and could not write if it tried; its
// settings go in the same round trip as BEGIN. byTable finds an effect by
// its table name.
func (o *Observer) readOnly(ctx context.Context, read func(tx pgx.Tx, byTable map[string]effect.Effect) error) error {
	begin := strings.Join(append([]string{beginReadOnly}, o.setLocals()...), "; ")
	tx, err := o.pool.BeginTx(ctx, pgx.TxOptions{BeginQuery: begin})
	if err != nil {
		return fmt.Errorf("observer: starting a read-only transaction: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read-only: nothing to lose
	return read(tx, o.byTable())
}

func text(col string) string {
	if col == "" {
		return "NULL"
	}
	return ident(col) + "::text"
}

// source is what an effect reads from: its table, or its query.
func source(e effect.Effect) string {
	if e.Query != "" {
		return "(" + e.Query + ") AS q"
	}
	return ident(e.Table)
}

// rowsQuery selects cols from the effect's rows in the namespace: one
// SELECT per branch, under UNION ALL.
func rowsQuery(e effect.Effect, f *finder, cols string) string {
	var parts []string
	for _, b := range f.branches(e) {
		parts = append(parts, fmt.Sprintf("SELECT %s FROM %s WHERE %s", cols, source(e), b))
	}
	return strings.Join(parts, "\nUNION ALL\n")
}

// rowCols is what readRows selects: tenant, key, id, reference, tag and
// join, each as text or NULL, then the fields in sorted order.
func rowCols(e effect.Effect) (cols, fields []string) {
	fields = sortedKeys(e.Fields)
	cols = []string{text(e.Tenant), text(e.Key), text(e.ID), "NULL", text(e.Tag), "NULL"}
	if e.References != nil {
		cols[3] = text(e.References.Column)
	}
	if e.Join != nil {
		cols[5] = text(e.Join.Column)
	}
	for _, f := range fields {
		cols = append(cols, text(f))
	}
	return cols, fields
}

func readRows(br pgx.BatchResults, e effect.Effect) ([]model.Row, error) {
	const fixed = 6
	cols, fields := rowCols(e)
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.Row
	vals := make([]pgtype.Text, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		r := model.Row{Tenant: vals[0].String, Key: vals[1].String, KeyNull: !vals[1].Valid,
			ID: vals[2].String, Ref: vals[3].String, RefNull: e.References != nil && !vals[3].Valid,
			Tag: vals[4].String, Join: vals[5].String}
		if len(fields) > 0 {
			r.Fields = make(map[string]string, len(fields))
			for i, f := range fields {
				if vals[fixed+i].Valid {
					r.Fields[f] = vals[fixed+i].String
				}
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func splitName(name string) (*string, string) {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		schema := name[:i]
		return &schema, name[i+1:]
	}
	return nil, name
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ident quotes a possibly schema-qualified name.
func ident(name string) string {
	return pgx.Identifier(strings.Split(name, ".")).Sanitize()
}
