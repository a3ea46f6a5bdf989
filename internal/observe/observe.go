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
	"github.com/idemstress/idemstress/internal/observe/access"
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
	info map[string]*access.TableInfo
	// planMarks are the marks read by Begin, for the last maxPlanMarks
	// namespaces, oldest first in planOrder.
	planMarks map[model.Namespace]access.Marks
	planOrder []model.Namespace
	// latest are the marks the last Observe read in its own transaction
	// (nil until one has): Begin takes them instead of reading its own.
	latest access.Marks
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
		planMarks: map[model.Namespace]access.Marks{}, runs: map[model.Namespace]*runState{}}
}

// DB is the pool the observer reads with.
func (o *Observer) DB() *pgxpool.Pool { return o.pool }

// Observe reads every row of every effect table that belongs to the
// namespace: by a tenant or key with its prefix, by a tag inside it, or by
// pointing at such a row. What it reads follows what the plan wrote when
// the tables have the indexes Indexes names, and Begin was called before
// the plan's first call (see package access).
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
func (o *Observer) readBatch(info map[string]*access.TableInfo, m access.Marks, ns model.Namespace) (*pgx.Batch, int, *marksQuery) {
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
		f := access.NewFinder(o.Contract, info, byTable, m, ns)
		cols, _ := rowCols(e)
		batch.Queue(access.RowsQuery(e, f, strings.Join(cols, ", ")), f.Vals()...)
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

// prepare reads the catalog once, for every effect table. A table it
// cannot read is searched by scans, and Notes says why.
func (o *Observer) prepare(ctx context.Context) map[string]*access.TableInfo {
	o.mu.Lock()
	if o.info != nil {
		defer o.mu.Unlock()
		return o.info
	}
	o.mu.Unlock()
	info := map[string]*access.TableInfo{}
	var notes []string
	err := o.readOnly(ctx, func(tx pgx.Tx, _ map[string]effect.Effect) error {
		for _, e := range o.effects {
			if e.Query != "" {
				continue
			}
			t, err := access.Inspect(ctx, tx, e)
			if err != nil {
				return fmt.Errorf("%s: %w", e.Table, err)
			}
			info[e.Table] = t
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return map[string]*access.TableInfo{} // try again next time
		}
		notes = append(notes, fmt.Sprintf("observer: reading the catalog failed (%v): every plan scans every effect table", err))
		info = map[string]*access.TableInfo{}
	}
	byTable := o.byTable()
	for _, e := range o.effects {
		if n := access.ScanNote(o.Contract, e, info, byTable); n != "" {
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

// Indexes says, for each effect table, which index observation uses and
// which one it would need. It reads the catalog only.
func (o *Observer) Indexes(ctx context.Context) []access.IndexAdvice {
	info := o.prepare(ctx)
	byTable := o.byTable()
	out := make([]access.IndexAdvice, 0, len(o.effects))
	for _, e := range o.effects {
		out = append(out, access.Advise(o.Contract, e, info, byTable))
	}
	return out
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
	return access.Ident(col) + "::text"
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
