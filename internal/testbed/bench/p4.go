package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/observe"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// NewDB makes a new, empty database and returns its URL.
type NewDB func(ctx context.Context) (string, error)

// logf receives progress lines.
type logf func(format string, args ...any)

// p4 is one layout's run cost over foreign rows: the same plans (same
// seed) over an empty database, over databases holding each size of
// foreign rows in every effect table, and over an empty one again.
type p4 struct {
	Layout ticketsvc.Layout
	Plans  int
	Sizes  []int // foreign rows per effect table, not counting the empty runs
	// Empty is the mean of the two empty runs.
	Empty time.Duration
	Times map[int]time.Duration
	// PeakRSS is this process's peak resident set (MiB) during each run
	// (0: the first empty run): idemstress and the in-process sample
	// service, not PostgreSQL's processes.
	PeakRSS map[int]float64
}

// Ratio is the time over rows foreign rows ÷ the empty-table time.
func (p p4) Ratio(rows int) float64 { return float64(p.Times[rows]) / float64(p.Empty) }

// measureP4 runs plans plans of the correct sample service in layout over
// an empty database, then over each size of foreign rows, then empty again.
// A run that does not pass all its plans is an error: its time would
// measure something else.
func measureP4(ctx context.Context, newDB NewDB, layout ticketsvc.Layout, sizes []int, plans int, seed uint64, logf logf) (p4, error) {
	p := p4{Layout: layout, Plans: plans, Sizes: sizes, Times: map[int]time.Duration{}, PeakRSS: map[int]float64{}}
	run := func(rows int) (time.Duration, error) {
		svc, err := fillSample(ctx, newDB, layout, rows, logf)
		if err != nil {
			return 0, err
		}
		defer svc.Close()
		cfg, err := svc.Config(plans, seed)
		if err != nil {
			return 0, err
		}
		resetPeakRSS()
		start := time.Now()
		res, err := stress.Run(ctx, cfg)
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		p.PeakRSS[rows] = max(p.PeakRSS[rows], peakRSSMiB())
		logf("P4 %s, %d foreign rows per effect table: %d plans in %.2fs, %s", layout, rows, res.Plans, d.Seconds(), res.Verdict)
		if res.Verdict != checks.Pass || res.Plans != plans {
			return d, fmt.Errorf("P4 %s, %d foreign rows: verdict %s after %d plans: %v %v", layout, rows, res.Verdict, res.Plans, res.Err, res.Outside)
		}
		return d, nil
	}
	empty1, err := run(0)
	if err != nil {
		return p, err
	}
	for _, n := range sizes {
		if p.Times[n], err = run(n); err != nil {
			return p, err
		}
	}
	empty2, err := run(0)
	if err != nil {
		return p, err
	}
	p.Empty = (empty1 + empty2) / 2
	return p, nil
}

// baseline is the time of the check outside the namespace (IDEM-009) over
// Rows foreign rows in each effect table: once before a run, once after a
// run's worth of rows was written inside its namespace.
type baseline struct {
	Layout        ticketsvc.Layout
	Rows          int
	Before, After time.Duration
	PeakRSS       float64
}

// measureBaseline fills a new database with rows foreign rows per effect
// table and times the baseline before and after 800 actions are written
// inside a namespace.
func measureBaseline(ctx context.Context, newDB NewDB, layout ticketsvc.Layout, rows int, logf logf) (baseline, error) {
	bl := baseline{Layout: layout, Rows: rows}
	svc, err := fillSample(ctx, newDB, layout, rows, logf)
	if err != nil {
		return bl, err
	}
	defer svc.Close()
	o := observe.NewObserver(svc.Pool, svc.Contract.Effects)
	prefix := model.Namespace(fmt.Sprintf("isbench%d-", time.Now().UnixNano()))
	resetPeakRSS()
	start := time.Now()
	before, err := o.Baseline(ctx, prefix)
	if err != nil {
		return bl, err
	}
	bl.Before = time.Since(start)
	if err := writeInside(ctx, svc, layout, prefix, 800); err != nil {
		return bl, err
	}
	start = time.Now()
	after, err := o.Baseline(ctx, prefix)
	if err != nil {
		return bl, err
	}
	bl.After = time.Since(start)
	if vs := checks.Outside(before, after); len(vs) > 0 {
		return bl, fmt.Errorf("baseline %s: rows inside the run counted outside: %v", layout, vs)
	}
	bl.PeakRSS = peakRSSMiB()
	logf("baseline %s, %d rows per effect table: before %.2fs, after %.2fs: %v", layout, rows, bl.Before.Seconds(), bl.After.Seconds(), after)
	return bl, nil
}

// rowsLabel names a row count: 1e5 for 100000, 1500 for 1500.
func rowsLabel(n int) string {
	e, m := 0, n
	for ; m >= 10 && m%10 == 0; m /= 10 {
		e++
	}
	if e < 2 {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%de%d", m, e)
}

// fillSample starts the correct sample service over a new database whose
// effect tables hold rows foreign rows each (every outbox row points at a
// foreign ticket), vacuumed and analysed as a live database would be.
func fillSample(ctx context.Context, newDB NewDB, layout ticketsvc.Layout, rows int, logf logf) (*sample.Service, error) {
	url, err := newDB(ctx)
	if err != nil {
		return nil, err
	}
	svc, err := sample.Start(ctx, url, sample.Correct, layout)
	if err != nil {
		return nil, err
	}
	if rows == 0 {
		return svc, nil
	}
	start := time.Now()
	tickets := `INSERT INTO tickets (tenant, request_key, subject)
		SELECT 'acme-' || (g % 997), 'req-' || g, 'Printer offline #' || g FROM generate_series(1, $1::bigint) g`
	outbox := `INSERT INTO notification_outbox (tenant, request_key, ticket_id) SELECT tenant, request_key, id FROM tickets`
	if layout == ticketsvc.LayoutTagged {
		tickets = `INSERT INTO tickets (tenant, subject)
			SELECT 'acme-' || (g % 997), 'Printer offline [acme-' || (g % 997) || '.req-' || g || '.v0]' FROM generate_series(1, $1::bigint) g`
		outbox = `INSERT INTO notification_outbox (ticket_id) SELECT id FROM tickets`
	}
	conn, err := svc.Pool.Acquire(ctx)
	if err != nil {
		svc.Close()
		return nil, err
	}
	// Every outbox row points at a ticket by construction: checking the
	// foreign key row by row would take most of the fill's time. Off where
	// the role may (a superuser, as on the throwaway cluster); the
	// connection is closed afterwards, so the setting dies with it.
	_, _ = conn.Exec(ctx, "SET session_replication_role = replica")
	for _, q := range []string{tickets, outbox} {
		args := []any{}
		if strings.Contains(q, "$1") {
			args = append(args, rows)
		}
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			conn.Release()
			svc.Close()
			return nil, err
		}
	}
	_ = conn.Conn().Close(ctx)
	conn.Release()
	if _, err := svc.Pool.Exec(ctx, "VACUUM ANALYZE tickets, notification_outbox"); err != nil {
		svc.Close()
		return nil, err
	}
	logf("%s: %d foreign rows per effect table written in %.1fs", layout, rows, time.Since(start).Seconds())
	return svc, nil
}

// writeInside writes n actions' rows in the namespace prefix, as a run
// would: through the service's own tables, not through its HTTP API (the
// baseline does not care who wrote them).
func writeInside(ctx context.Context, svc *sample.Service, layout ticketsvc.Layout, prefix model.Namespace, n int) error {
	q := `WITH t AS (INSERT INTO tickets (tenant, request_key, subject)
			SELECT $1 || g || '-A', $1 || g || '-k1', 'Printer offline' FROM generate_series(1, $2::int) g RETURNING id, tenant, request_key)
		INSERT INTO notification_outbox (tenant, request_key, ticket_id) SELECT tenant, request_key, id FROM t`
	if layout == ticketsvc.LayoutTagged {
		q = `WITH t AS (INSERT INTO tickets (tenant, subject)
				SELECT $1 || g || '-A', 'Printer offline [' || $1 || g || '-A.k1.v0]' FROM generate_series(1, $2::int) g RETURNING id)
			INSERT INTO notification_outbox (ticket_id) SELECT id FROM t`
	}
	_, err := svc.Pool.Exec(ctx, q, string(prefix), n)
	return err
}
