package observe

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/observe/access"
)

// Where a plan's rows begin: the marks (max of each mark column, see
// package access) read before the plan's first call or the run's, kept
// for the Observe that follows.

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
func (o *Observer) marksRead(info map[string]*access.TableInfo, needed bool) *marksQuery {
	q := &marksQuery{}
	var cols []string
	byTable := o.byTable()
	for _, e := range o.effects {
		t := info[e.Table]
		// Any ASCII namespace gives the same answer.
		f := access.NewFinder(o.Contract, info, byTable, nil, "x-")
		if t == nil || t.Mark == nil || e.Query != "" || needed && !f.NeedsMark(e) {
			continue
		}
		q.tables = append(q.tables, e.Table)
		cols = append(cols, fmt.Sprintf("(SELECT max(%s) FROM %s)::bigint", access.Ident(t.Mark.Name), access.Ident(e.Table)))
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
func (q *marksQuery) marks() access.Marks {
	m := access.Marks{}
	for i, t := range q.tables {
		m[t] = q.vals[i]
	}
	return m
}

// readMarks reads the marks of marksRead in a read-only transaction of
// their own; nil when there are none.
func (o *Observer) readMarks(ctx context.Context, info map[string]*access.TableInfo, needed bool) (access.Marks, error) {
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
func (o *Observer) marksFor(ns model.Namespace) access.Marks {
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
