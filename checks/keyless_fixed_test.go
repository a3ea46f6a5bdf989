package checks_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// Under fixed tenants (tenants:) only the key carries the namespace, so a
// keyless create's rows, whose key is NULL, are rows no query of the
// namespace finds: their count is no news about the service. What the
// answers say is still judged.
func TestKeylessCreatesUnderFixedTenants(t *testing.T) {
	w := plain
	c := keylessContract()
	c.Tenants = []string{"acme", "globex"}
	nk := model.Call{Tenant: w.a, NoKey: true}
	keyed := func(key, id string) []put {
		rows := w.created(w.a, key, id, 0)
		for i := range rows {
			rows[i].row.Tenant = "acme"
		}
		return rows
	}
	for _, tc := range []struct {
		name string
		h    model.History
		rows []put
		want []checks.ID
	}{
		{name: "a create whose rows no query finds", h: history(op(0, nk, ok(w.id1)), op(1, call(w.a, w.k1, 0), ok("9"))), rows: keyed(w.k1, "9")},
		{name: "a create answered with a keyed action's ID", h: history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, nk, ok(w.id1))),
			rows: keyed(w.k1, w.id1), want: []checks.ID{checks.UnstableResponse}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: tc.h, Rows: snapshot(tc.rows)})
			if ids := checks.IDsOf(got); !slices.Equal(ids, tc.want) {
				t.Errorf("checks fired %v, want %v:\n%s", ids, tc.want, dump(got))
			}
		})
	}
}
