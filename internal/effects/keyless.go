package effects

import (
	"fmt"
	"maps"
	"slices"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// Under key_required: false (model.Contract.KeylessCreates) a call without
// the key is an ordinary create: an action of its own, never a replay of
// anything. Its rows carry no key, and a tag without a key names no one
// call either, so they are counted by tenant: a tenant's keyless rows in
// a table number per_action for each of its keyless calls answered ok, up
// to per_action more for each whose effect is unknown. Two keyless calls,
// or one and a keyed call, answered with one ID are one resource where
// there must be two.

// keylessGroup is what the keyless calls and rows of one tenant are
// counted under: the tenant, or nothing under a global key scope (where a
// tag carries no tenant).
func keylessGroup(c model.Contract, tenant string) model.Action {
	if c.KeyScope == model.KeyScopeGlobal {
		return model.Action{}
	}
	return model.Action{Tenant: tenant}
}

// keylessCalls are the keyless calls of one group.
type keylessCalls struct {
	ops []model.Op
	// ok counts the calls answered ok, maybe those whose effect is unknown.
	ok, maybe int
}

// groupKeyless counts the keyless calls by group.
func groupKeyless(c model.Contract, keyless []model.Op) map[model.Action]*keylessCalls {
	groups := map[model.Action]*keylessCalls{}
	for _, op := range keyless {
		g := keylessGroup(c, op.Call.Tenant)
		if groups[g] == nil {
			groups[g] = &keylessCalls{}
		}
		k := groups[g]
		k.ops = append(k.ops, op)
		switch {
		case op.Out.Kind == model.OK:
			k.ok++
		case op.EffectUnknown():
			k.maybe++
		}
	}
	return groups
}

// keylessRowChecks count each group's keyless rows (rows, by table and
// group) against its keyless calls.
func keylessRowChecks(in Input, keyless []model.Op, rows map[string]map[model.Action][]model.Row) []Finding {
	var vs []Finding
	groups := groupKeyless(in.Contract, keyless)
	for _, e := range in.Effects {
		if !keylessVisible(in.Contract, in.Effects, e) {
			continue
		}
		want := e.RowsPerAction()
		seen := slices.Collect(maps.Keys(rows[e.Table]))
		for g := range groups {
			if !slices.Contains(seen, g) {
				seen = append(seen, g)
			}
		}
		for _, g := range seen {
			calls, got := groups[g], rows[e.Table][g]
			if calls == nil {
				vs = append(vs, violation(StrayWrite, g, "a row in "+e.Table+" has no key though no call of its tenant left it out",
					fmt.Sprintf("%d row(s) with no key in %s", len(got), e.Table)))
				continue
			}
			n, lo, hi := len(got), calls.ok*want, (calls.ok+calls.maybe)*want
			where := fmt.Sprintf("%d call(s) without a key answered ok and %d of unknown effect: %d row(s) in %s, want %d", calls.ok, calls.maybe, n, e.Table, lo)
			if hi > lo {
				where += fmt.Sprintf(" to %d", hi)
			}
			switch {
			case n > hi:
				vs = append(vs, violation(DuplicateEffect, g, "calls without a key left more rows in "+e.Table+" than they created", where+rowIDs(got)))
			case n < lo:
				vs = append(vs, violation(MissingEffect, g, "calls without a key answered ok left fewer rows in "+e.Table+" than they created", where))
			}
			if e.ID != "" && n >= lo {
				// Where rows are missing, that is the news, not the IDs.
				vs = append(vs, keylessIDs(e, g, calls, got)...)
			}
			vs = append(vs, keylessFields(e, g, calls, got)...)
			if ref := e.References; ref != nil && slices.ContainsFunc(in.Effects, func(o effect.Effect) bool { return o.Table == ref.Table && keylessVisible(in.Contract, in.Effects, o) }) {
				vs = append(vs, referenceChecks(e, g, got, rows[ref.Table][g])...)
			}
		}
	}
	return vs
}

// keylessVisible reports whether a keyless row of e can be seen at all:
// one attributed by key columns needs a tenant column (the observer reads
// a namespace's rows by tenant or by key, and a keyless row has only the
// one) that carries the namespace (fixed tenants: carry none), a tagged one carries the namespace in its tag, and a joined one
// is seen when the row it points at is. Where none can be seen, no
// keyless row is counted, rather than each ok keyless create blamed for
// rows nobody could read.
func keylessVisible(c model.Contract, effects []effect.Effect, e effect.Effect) bool {
	for range effects { // a join chain is at most as long as the list
		switch e.Attribution() {
		case effect.ByTag:
			return true
		case effect.ByJoin:
			i := slices.IndexFunc(effects, func(o effect.Effect) bool { return o.Table == e.Join.Table })
			if i < 0 {
				return false
			}
			e = effects[i]
		default:
			return e.Tenant != "" && len(c.Tenants) == 0
		}
	}
	return false
}

// keylessIDs: a keyless create's ID is the ID of a row it wrote.
func keylessIDs(e effect.Effect, g model.Action, calls *keylessCalls, rows []model.Row) []Finding {
	var vs []Finding
	for _, op := range calls.ops {
		if op.Out.Kind == model.OK && !ownsID(rows, op.Out.ID) {
			vs = append(vs, violation(UnstableResponse, g, "a call without a key was answered with an ID that is no row of its tenant's keyless creates in "+e.Table,
				fmt.Sprintf("call %s got %s%s", op.Call, op.Out, rowIDs(rows))))
		}
	}
	return vs
}

// keylessFields: every keyless row holds the fields of one of its group's
// keyless calls that may have written it.
func keylessFields(e effect.Effect, g model.Action, calls *keylessCalls, rows []model.Row) []Finding {
	if len(e.Fields) == 0 {
		return nil
	}
	var vs []Finding
	cols := slices.Sorted(maps.Keys(e.Fields))
	for _, r := range rows {
		matches := slices.ContainsFunc(calls.ops, func(op model.Op) bool {
			if op.Out.Kind != model.OK && !op.EffectUnknown() {
				return false
			}
			return !slices.ContainsFunc(cols, func(col string) bool {
				stored, set := r.Fields[col]
				return !payloads.StoredEqual(op.Body, e.Fields[col], stored, !set)
			})
		})
		if !matches {
			vs = append(vs, violation(FieldsDiffer, g, "a row without a key in "+e.Table+" holds the payload of no call without a key",
				fmt.Sprintf("row %s in %s: %v", model.ShowID(r.ID), e.Table, r.Fields)))
		}
	}
	return vs
}
