package observe

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/observe/access"
)

// runState is what the baseline before a run keeps for the ones after.
type runState struct {
	// xmax is the first transaction ID (64 bits) the baseline before the
	// run did not see, pg_current_snapshot's xmax: every row version
	// committed since has an xmin at or above it (modulo 2^32).
	xmax uint64
	// marks are the mark columns' values before the run: the run's rows
	// are above them (see markColumn).
	marks  access.Marks
	before model.Baseline
	// byContent are the tables fingerprinted by their content instead of
	// by xmin (see Baseline).
	byContent map[string]bool
}

// Baseline reads the fingerprint of the rows outside prefix in one
// read-only transaction. The first call for a prefix must come before the
// run's first call: it also marks where the run's rows begin, for Observe
// and for the calls after. Each later call compares with the first.
//
// A fingerprint costs one pass over each table, reading no row into
// memory, and no sort. (The sorted digest of every row it replaces took
// 33-36s per call on 10^7 rows a table in the sample's keys layout, and
// 45-221s on 10^6 in its tagged one; this takes 1-2s on 10^7: see
// BenchmarkBaseline.)
//
//   - Before the run: the number of rows outside the prefix (all rows, less
//     those inside, found as Observe finds them), and the transaction
//     horizon, pg_current_snapshot's xmax.
//   - After: the same count, and how many row versions outside the prefix
//     were committed since that horizon (an xmin among the transaction IDs
//     from it on: an INSERT or an UPDATE, even one that set a column to its
//     own value; a DELETE shows in the count). The fingerprint is the count, followed by that
//     number when it is not 0, so it equals the one before exactly when
//     nothing outside was written.
//
// An xmin is 32 bits. A row version frozen by VACUUM keeps its xmin, and
// age(xmin) counts back from the next transaction ID modulo 2^32: after
// 2^31 more transactions, a frozen row's xmin looks recent again, or "in
// the future" (a negative age, taken as old here). So on a cluster past its
// first 2^32 transactions, the baseline before the run looks for rows with
// xmins ahead of the current one; a table that has any is fingerprinted by
// its content instead (a count and a sum of row hashes, outside the
// prefix, one pass again but slower), and Notes says so.
//
// A table without row versions (a view) is fingerprinted by content too.
//
// The tables share BaselineBudget, each taking an equal part of what is
// left (statement_timeout): a table that does not finish in time, or
// cannot be read, is left out (its string before the run stands for the
// one after, so that nothing is reported that was not measured), and Notes
// says so. Baseline only fails when it cannot start a transaction at all.
func (o *Observer) Baseline(ctx context.Context, prefix model.Namespace) (model.Baseline, error) {
	info := o.prepare(ctx)
	st, first := o.runOf(ctx, info, prefix)
	deadline := o.baselineDeadline(ctx)
	b := model.Baseline{}
	err := o.readOnly(ctx, func(tx pgx.Tx, byTable map[string]effect.Effect) error {
		var xmax uint64
		var age int64 // of st.xmax: row versions at most this old are recent
		if err := tx.QueryRow(ctx, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint, age($1::text::xid)`, xid32(st.xmax)).Scan(&xmax, &age); err != nil {
			return err
		}
		if first {
			st.xmax = xmax
		}
		var todo []effect.Effect
		for _, e := range effect.JoinedLast(o.effects) {
			if e.Query != "" {
				continue
			}
			if _, ok := st.before[e.Table]; first || ok {
				todo = append(todo, e) // (not measured before the run: nothing to compare)
			}
		}
		c := &counting{o: o, tx: tx, info: info, byTable: byTable, prefix: prefix, st: st, age: age, xmax: xmax, missed: map[string]bool{}}
		return c.fingerprintAll(ctx, todo, first, deadline, b)
	})
	if err != nil {
		return nil, err
	}
	if first {
		st.before = b
		o.mu.Lock()
		o.runs[prefix] = st
		o.mu.Unlock()
	}
	return b, nil
}

// runOf is the state of the run in prefix, and whether this is its first
// baseline; a first one starts with the marks of where the run's rows
// begin.
func (o *Observer) runOf(ctx context.Context, info map[string]*access.TableInfo, prefix model.Namespace) (st *runState, first bool) {
	o.mu.Lock()
	st = o.runs[prefix]
	o.mu.Unlock()
	if st != nil {
		return st, false
	}
	m, err := o.readMarks(ctx, info, false)
	if err != nil {
		o.note("baseline: reading where the run's rows begin: %v; plans are observed by scans", err)
	}
	st = &runState{marks: m, byContent: map[string]bool{}}
	if st.marks == nil {
		st.marks = access.Marks{}
	}
	return st, true
}

// baselineDeadline is when the baseline's budget ends: BaselineBudget
// (30s by default) from now, or a second before ctx ends if sooner.
func (o *Observer) baselineDeadline(ctx context.Context) time.Time {
	budget := o.BaselineBudget
	if budget <= 0 {
		budget = 30 * time.Second
	}
	deadline := time.Now().Add(budget)
	if d, ok := ctx.Deadline(); ok && d.Add(-time.Second).Before(deadline) {
		// Leave the caller a second: a table cut short by its share is a
		// note, a context that ends is an error.
		deadline = d.Add(-time.Second)
	}
	return deadline
}

// fingerprintAll writes each table's fingerprint into b, each table
// taking an equal share of what is left before deadline, so that one slow
// table does not leave the others out. A table that fails is noted, and
// after the run stands in by its string before; only ctx's end is an
// error.
func (c *counting) fingerprintAll(ctx context.Context, todo []effect.Effect, first bool, deadline time.Time, b model.Baseline) error {
	for i, e := range todo {
		share := time.Until(deadline) / time.Duration(len(todo)-i)
		var fp string
		err := errors.New("the baseline's time budget was spent on the tables before it")
		if share > 0 {
			fp, err = c.fingerprint(ctx, e, first, share)
		}
		switch {
		case err == nil:
			b[e.Table] = fp
		case ctx.Err() != nil:
			return ctx.Err()
		case first:
			c.o.note("baseline: %s left out of the check for changes outside the run (IDEM-009): %v", e.Table, err)
		default:
			b[e.Table] = c.st.before[e.Table]
			c.o.note("baseline: %s not compared after the run (IDEM-009 unchecked there): %v", e.Table, err)
		}
	}
	return nil
}

// xid32 is a 64-bit transaction ID as the 32-bit xid rows carry, as text.
func xid32(x uint64) string {
	v := uint32(x)
	if v < 3 {
		v = 3 // 0-2 are never assigned: an epoch's first normal xid is 3
	}
	return strconv.FormatUint(uint64(v), 10)
}

// counting is one Baseline call's state.
type counting struct {
	o       *Observer
	tx      pgx.Tx
	info    map[string]*access.TableInfo
	byTable map[string]effect.Effect
	prefix  model.Namespace
	st      *runState
	age     int64
	// xmax is this call's horizon: the run's transactions are those from
	// st.xmax up to it.
	xmax uint64
	// missed are the tables where the marks missed rows of the run.
	missed map[string]bool
}

// fingerprint is one table's string, computed under a savepoint with its
// share of the budget as statement_timeout, so that a table that fails or
// takes too long leaves the transaction usable for the next.
func (c *counting) fingerprint(ctx context.Context, e effect.Effect, first bool, left time.Duration) (string, error) {
	sp, err := c.tx.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer sp.Rollback(ctx) //nolint:errcheck // read-only
	if _, err := sp.Exec(ctx, "SET LOCAL statement_timeout = "+strconv.FormatInt(max(left.Milliseconds(), 1), 10)); err != nil {
		return "", err
	}
	f := access.NewFinder(c.o.Contract, c.info, c.byTable, c.st.marks, c.prefix)
	t := c.info[e.Table]
	if t == nil || !t.Found || (t.Kind != "r" && t.Kind != "p" && t.Kind != "m") {
		c.st.byContent[e.Table] = true
	}
	if first && !c.st.byContent[e.Table] && c.st.xmax >= 1<<32 {
		// Past the first epoch: are there xmins ahead of the next one?
		var ahead bool
		q := fmt.Sprintf("SELECT EXISTS (SELECT FROM %s WHERE age(xmin) < 0)", access.Ident(e.Table))
		if err := sp.QueryRow(ctx, q).Scan(&ahead); err != nil {
			return "", err
		}
		if ahead {
			c.st.byContent[e.Table] = true
			c.o.note("baseline: %s holds rows frozen 2^31 or more transactions ago, whose xmin may look like the run's: compared by content (a pass that hashes every row) instead", e.Table)
		}
	}
	var fp string
	switch {
	case c.st.byContent[e.Table]:
		fp, err = byContent(ctx, sp, e, f)
	case first:
		fp, err = c.before(ctx, sp, e, f)
	default:
		fp, err = c.after(ctx, sp, e, f)
	}
	if err != nil {
		return "", err
	}
	return fp, sp.Commit(ctx)
}

// before counts the rows outside the prefix: all, less those inside, found
// as Observe finds them. (There are none inside yet: the prefix is the
// run's own, drawn at random.)
func (c *counting) before(ctx context.Context, tx pgx.Tx, e effect.Effect, f *access.Finder) (string, error) {
	var total, inside int64
	q := fmt.Sprintf("SELECT (SELECT count(*) FROM %s), (SELECT count(*) FROM (%s) AS inside)", access.Ident(e.Table), access.RowsQuery(e, f, "1"))
	if err := tx.QueryRow(ctx, q, f.Vals()...).Scan(&total, &inside); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d rows", total-inside), nil
}

// after counts the rows outside the prefix, and the row versions outside
// it committed since the baseline before the run.
func (c *counting) after(ctx context.Context, tx pgx.Tx, e effect.Effect, f *access.Finder) (string, error) {
	recent := c.recent(f)
	exact := f.InNamespace(e)
	if e.Join != nil && c.missed[e.Join.Table] {
		// Rows of the run that the marks missed in the joined table: the
		// rows pointing at them are inside too. Found by one more pass over
		// that table, only in this case. (Unqualified, the subquery's
		// columns and xmin are its table's.)
		ref := c.byTable[e.Join.Table]
		col, refID := f.JoinCols(e)
		exact = fmt.Sprintf("(%s OR %s IN (SELECT %s FROM %s WHERE %s AND %s))", exact, col, refID, access.Ident(ref.Table), recent, f.InNamespace(ref))
	}
	// One pass: each recent row adds 1 when outside, 2^32 when inside.
	var total, sum, inside, recentFound int64
	q := fmt.Sprintf(`SELECT count(*), coalesce(sum(CASE WHEN %[2]s THEN CASE WHEN coalesce(%[3]s, false) THEN 4294967296 ELSE 1 END ELSE 0 END), 0) FROM %[1]s`,
		access.Ident(e.Table), recent, exact)
	if err := tx.QueryRow(ctx, q, f.Vals()...).Scan(&total, &sum); err != nil {
		return "", err
	}
	recentOutside, recentInside := sum&(1<<32-1), sum>>32
	q = fmt.Sprintf("SELECT count(*), count(*) FILTER (WHERE recent) FROM (%s) AS inside", access.RowsQuery(e, f, recent+" AS recent"))
	if err := tx.QueryRow(ctx, q, f.Vals()...).Scan(&inside, &recentFound); err != nil {
		return "", err
	}
	if n := recentInside - recentFound; n > 0 {
		// The marks missed rows of the run: its ids did not grow with each
		// insert, or an old row was changed to carry the namespace. Count
		// them inside here, and say that the plans' observations may have
		// missed them.
		c.missed[e.Table] = true
		inside += n
		c.o.note("observer: %d row(s) of this run in %s have ids at or below the mark taken before they were written (the service sets ids itself?), or are older rows changed to carry the run's namespace: observing by mark missed them, and the verdicts of this run may be wrong", n, e.Table)
	}
	fp := fmt.Sprintf("%d rows", total-inside)
	if recentOutside > 0 {
		fp += fmt.Sprintf(", %d row version(s) written during the run", recentOutside)
	}
	return fp, nil
}

// maxListed bounds the transactions of a run listed by recent (a variable
// for the tests of the other way).
var maxListed uint64 = 1 << 16

// recent is the condition that a row version was committed since the
// baseline before the run: its xmin is one of the transaction IDs from
// st.xmax to c.xmax, modulo 2^32. Listed, when there are at most maxListed
// of them: xid equality runs in parallel workers, as age() does not.
// Otherwise age() decides: it counts back from the next transaction ID, the
// same for every row of this transaction, so xmin >= st.xmax exactly when
// 0 <= age(xmin) <= c.age; the mask makes a negative age (an xmin "ahead",
// frozen long ago) large, so that one call of age() per row decides.
func (c *counting) recent(f *access.Finder) string {
	if n := c.xmax - c.st.xmax; c.xmax >= c.st.xmax && n <= maxListed {
		xids := make([]uint32, 0, n)
		for x := c.st.xmax; x < c.xmax; x++ {
			if uint32(x) >= 3 { // 0-2 are never assigned
				xids = append(xids, uint32(x))
			}
		}
		// A typed array parameter becomes a constant of the (custom) plan,
		// which PostgreSQL then looks rows up in by hash.
		return fmt.Sprintf("xmin = ANY(%s::xid[])", f.Add("xids", xids))
	}
	return fmt.Sprintf("(age(xmin)::bigint & 4294967295) <= %s", f.Add("age", c.age))
}

// byContent fingerprints the rows outside the prefix by their content: a
// count and a sum of row hashes, in one pass, in any order. It sees a row
// changed to other values, added or removed, not one rewritten as it was.
func byContent(ctx context.Context, tx pgx.Tx, e effect.Effect, f *access.Finder) (string, error) {
	q := fmt.Sprintf(`SELECT count(*)::text || ' rows, content ' || coalesce(sum(hashtext(t::text)), 0)::text
		FROM %s AS t WHERE NOT coalesce((%s), false)`, access.Ident(e.Table), f.InNamespace(e))
	var fp string
	err := tx.QueryRow(ctx, q, f.Vals()...).Scan(&fp)
	return fp, err
}
