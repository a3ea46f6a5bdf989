package effects

import (
	"fmt"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/identifiers"
)

// rowProblem says why a row cannot simply be counted for its action.
type rowProblem int

const (
	rowOK rowProblem = iota
	// keylessRow: a row in the namespace with no key (a keyless call's effect).
	keylessRow
	// strayRow: a row that mixes the namespace with strings from outside it,
	// or whose tag does not parse.
	strayRow
	// danglingRow: a joined row that points at no row of the namespace.
	danglingRow
	// foreignTenantRow: a row attributed by its tag whose tenant column
	// names another tenant. It still counts for its action.
	foreignTenantRow
)

// attribute maps a row back to its logical action. owner holds the actions
// of the rows of tables attributed before, by table and ID.
func attribute(in Input, e effect.Effect, r model.Row, owner map[string]map[string]model.Action) (model.Action, rowProblem) {
	global := in.Contract.KeyScope == model.KeyScopeGlobal
	switch e.Attribution() {
	case effect.ByJoin:
		a, ok := owner[e.Join.Table][r.Join]
		switch {
		case !ok:
			return model.Action{}, danglingRow
		case a.Key == "":
			// It points at a keyless call's row: one more effect of that call.
			return a, keylessRow
		}
		return a, rowOK
	case effect.ByTag:
		tenant, key, ok := identifiers.ParseTag(in.Contract, in.NS, r.Tag)
		if !ok {
			return model.Action{}, strayRow
		}
		if key == "" {
			return model.Action{Tenant: tenant}, keylessRow
		}
		a := in.Contract.ActionOf(model.Call{Tenant: tenant, Key: key})
		if e.Tenant != "" && !global && r.Tenant != identifiers.SentTenant(in.Contract, in.NS, tenant) {
			return a, foreignTenantRow
		}
		return a, rowOK
	default:
		tenant, okT := identifiers.LogicalTenant(in.Contract, in.NS, r.Tenant)
		key, okK := identifiers.LogicalKey(in.Contract, in.NS, r.Key)
		switch {
		case okT && (r.KeyNull || r.Key == ""):
			return model.Action{Tenant: tenant}, keylessRow
		case !okK || (!okT && !global):
			return model.Action{Tenant: tenant, Key: key}, strayRow
		default:
			// The key as the service compares it (trim, case).
			return in.Contract.ActionOf(model.Call{Tenant: tenant, Key: key}), rowOK
		}
	}
}

// describeRow names a row by the columns that attribute it.
func describeRow(e effect.Effect, r model.Row) string {
	switch e.Attribution() {
	case effect.ByTag:
		return fmt.Sprintf("tagged %q", r.Tag)
	case effect.ByJoin:
		return fmt.Sprintf("pointing at %q", r.Join)
	default:
		return fmt.Sprintf("tenant %q key %q", r.Tenant, r.Key)
	}
}
