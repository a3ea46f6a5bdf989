package observe

import (
	"context"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/observe/access"
)

// Query is one statement Observe runs, with its arguments.
type Query struct {
	SQL  string
	Args []any
}

// ObserveQueries returns the statement Observe(ns) runs for each table,
// with the marks it would use, so that a test can EXPLAIN them.
func ObserveQueries(ctx context.Context, o *Observer, ns model.Namespace) map[string]Query {
	info := o.prepare(ctx)
	m := o.marksFor(ns)
	out := map[string]Query{}
	for _, e := range o.effects {
		f := access.NewFinder(o.Contract, info, o.byTable(), m, ns)
		cols, _ := rowCols(e)
		out[e.Table] = Query{SQL: access.RowsQuery(e, f, strings.Join(cols, ", ")), Args: f.Vals()}
	}
	return out
}

// ListRunTransactions sets whether Baseline lists a run's transactions
// (or compares age()), for the test of each way; it returns the undo.
func ListRunTransactions(list bool) func() {
	old := maxListed
	if !list {
		maxListed = 0
	}
	return func() { maxListed = old }
}
