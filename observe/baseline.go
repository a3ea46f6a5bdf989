package observe

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/model"
)

// Baseline fingerprints every effect row OUTSIDE a run's namespace prefix:
// a count and a digest per table. Taken before a run and again after, it
// proves the run wrote nothing but its own rows (IDEM-009). Query effects
// are left out: a query only ever shows the namespace's rows.
type Baseline map[string]string

// runState is what the baseline before a run keeps for the ones after.
type runState struct {
	// marks are the mark columns' values before the run.
	marks marks
}

// Baseline reads the fingerprint in one read-only transaction.
func (o *Observer) Baseline(ctx context.Context, prefix model.Namespace) (Baseline, error) {
	info := o.prepare(ctx)
	b := Baseline{}
	err := o.readOnly(ctx, func(tx pgx.Tx, byTable map[string]Effect) error {
		for _, e := range o.effects {
			if e.Query != "" {
				continue
			}
			f := &finder{info: info, byTable: byTable, a: newArgs(prefix), ns: string(prefix)}
			q := fmt.Sprintf(`SELECT count(*)::text || ' rows, digest ' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '-')
				FROM %s AS t WHERE NOT coalesce((%s), false)`, ident(e.Table), f.inNamespace(e))
			var fp string
			if err := tx.QueryRow(ctx, q, f.a.vals...).Scan(&fp); err != nil {
				return fmt.Errorf("observer: fingerprinting %s outside the run: %w", e.Table, err)
			}
			b[e.Table] = fp
		}
		return nil
	})
	return b, err
}
