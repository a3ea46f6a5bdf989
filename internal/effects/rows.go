package effects

import (
	"fmt"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// rowChecks compare the committed rows with what the answers promised.
func rowChecks(in Input, actions map[model.Action]*Promised, keyless []model.Op) []Finding {
	perAction, owner, keylessRows, vs := attributeRows(in, keyless)
	for _, e := range in.Effects {
		for a, rows := range perAction[e.Table] {
			if actions[a] == nil {
				vs = append(vs, violation(StrayWrite, a, "a row in "+e.Table+" belongs to an action never called",
					fmt.Sprintf("action %s has %d row(s) in %s", a, len(rows), e.Table)))
			}
		}
		for a, info := range actions {
			vs = append(vs, actionRows(in, e, a, info, perAction, owner)...)
		}
	}
	if in.Contract.KeylessCreates {
		vs = append(vs, keylessRowChecks(in, keyless, keylessRows)...)
	}
	return vs
}

// attributeRows gives each committed row its action, joined tables last so
// their rows find the action of the row they point at. It returns the
// rows by table and action; owner, the action of each row by table and ID
// (to tell a replayed ID that belongs to another tenant); the rows of
// keyless creates (key_required: false) by table and keylessGroup, counted
// by tenant, not by action; and the violations of rows no action can own.
func attributeRows(in Input, keyless []model.Op) (perAction map[string]map[model.Action][]model.Row, owner map[string]map[string]model.Action, keylessRows map[string]map[model.Action][]model.Row, vs []Finding) {
	perAction = map[string]map[model.Action][]model.Row{}
	owner = map[string]map[string]model.Action{}
	keylessRows = map[string]map[model.Action][]model.Row{}
	for _, e := range effect.JoinedLast(in.Effects) {
		owner[e.Table] = map[string]model.Action{}
		perAction[e.Table] = map[model.Action][]model.Row{}
		keylessRows[e.Table] = map[model.Action][]model.Row{}
		for _, r := range in.Rows[e.Table] {
			a, problem := attribute(in, e, r, owner)
			switch problem {
			case keylessRow:
				if e.ID != "" {
					// Joined rows that point at it are the keyless call's too.
					owner[e.Table][r.ID] = a
				}
				switch {
				case in.Contract.KeylessCreates:
					g := keylessGroup(in.Contract, a.Tenant)
					keylessRows[e.Table][g] = append(keylessRows[e.Table][g], r)
				case len(keyless) > 0:
					vs = append(vs, violation(RejectedEffect, a, "a call without a key left rows in "+e.Table,
						fmt.Sprintf("row of tenant %s with no key in %s", a.Tenant, e.Table)))
				default:
					vs = append(vs, violation(StrayWrite, a, "a row in "+e.Table+" has no key though every call carried one",
						fmt.Sprintf("row of tenant %q with no key in %s", r.Tenant, e.Table)))
				}
				continue
			case strayRow:
				vs = append(vs, violation(StrayWrite, a, "a row in "+e.Table+" has a tenant or key outside the plan",
					fmt.Sprintf("row %s in %s", describeRow(e, r), e.Table)))
				continue
			case danglingRow:
				vs = append(vs, violation(BrokenReference, a, fmt.Sprintf("a row of %s points at no row of %s", e.Table, e.Join.Table),
					fmt.Sprintf("%s.%s is %q", e.Table, e.Join.Column, r.Join)))
				continue
			case foreignTenantRow:
				vs = append(vs, violation(TenantLeak, a, "a row of "+e.Table+" carries another tenant than its action",
					fmt.Sprintf("action %s wrote a row of tenant %q in %s", a, r.Tenant, e.Table)))
			}
			perAction[e.Table][a] = append(perAction[e.Table][a], r)
			if e.ID != "" {
				owner[e.Table][r.ID] = a
			}
		}
	}
	return perAction, owner, keylessRows, vs
}

// partialIn is the first effect table other than e in which action a has
// rows, "" when there is none.
func partialIn(in Input, e effect.Effect, a model.Action, perAction map[string]map[model.Action][]model.Row) string {
	for _, o := range in.Effects {
		if o.Table != e.Table && len(perAction[o.Table][a]) > 0 {
			return o.Table
		}
	}
	return ""
}

func actionRows(in Input, e effect.Effect, a model.Action, info *Promised,
	perAction map[string]map[model.Action][]model.Row, owner map[string]map[string]model.Action) []Finding {
	var vs []Finding
	rows := perAction[e.Table][a]
	n, want := len(rows), e.RowsPerAction()
	where := fmt.Sprintf("action %s: %d row(s) in %s", a, n, e.Table)
	switch {
	case n > want:
		vs = append(vs, violation(DuplicateEffect, a, fmt.Sprintf("an action has more than %d row(s) in %s", want, e.Table), where+rowIDs(rows)))
	case n < want && len(info.OKIDs) > 0:
		vs = append(vs, violation(MissingEffect, a, fmt.Sprintf("an action answered ok has fewer than %d row(s) in %s", want, e.Table), where))
	case n < want && info.MayExist:
		// No ok answer promised the rows, but a call that may have taken
		// effect (a crashed one) took part of it: an effect is one
		// complete set or none, whatever its retries are answered.
		if other := partialIn(in, e, a, perAction); other != "" {
			vs = append(vs, violation(MissingEffect, a, fmt.Sprintf("a partial effect: an action has rows in %s but fewer than %d row(s) in %s", other, want, e.Table), where))
		}
	}
	if n > 0 && !info.MayExist {
		vs = append(vs, violation(RejectedEffect, a, "an action whose calls were all rejected has rows in "+e.Table, where+rowIDs(rows)))
	}
	if e.ID != "" {
		vs = append(vs, idChecks(e, a, info, rows, owner[e.Table])...)
	}
	for _, r := range rows {
		vs = append(vs, fieldChecks(e, a, sentWinners(in, a, info.Winners), r)...)
	}
	if e.References != nil {
		vs = append(vs, referenceChecks(e, a, rows, perAction[e.References.Table][a])...)
	}
	return vs
}

// idChecks: every ok answer's ID must be the ID of the action's own row,
// and never the ID of another tenant's row.
func idChecks(e effect.Effect, a model.Action, info *Promised, rows []model.Row, owner map[string]model.Action) []Finding {
	var vs []Finding
	for _, id := range info.OKIDs {
		if ownsID(rows, id) {
			continue
		}
		if other, found := owner[id]; found && other.Tenant != a.Tenant {
			vs = append(vs, violation(TenantLeak, a, "an ok answer carries the ID of another tenant's row in "+e.Table,
				fmt.Sprintf("action %s was answered id %s, the row of action %s", a, model.ShowID(id), other)))
			continue
		}
		if other, found := owner[id]; found && other != a && model.PlainKey(other.Key) == model.PlainKey(a.Key) {
			vs = append(vs, violation(KeysFolded, a, "an ok answer carries the ID of the row of a key that differs only by white space, case or form in "+e.Table,
				fmt.Sprintf("action %s was answered id %s, the row of action %s", model.Action{Tenant: a.Tenant, Key: model.KeyLabel(a.Key)}, model.ShowID(id),
					model.Action{Tenant: other.Tenant, Key: model.KeyLabel(other.Key)})))
			continue
		}
		if len(rows) > 0 {
			vs = append(vs, violation(UnstableResponse, a, "an ok answer's ID is not the ID of the action's row in "+e.Table,
				fmt.Sprintf("action %s was answered id %s%s", a, model.ShowID(id), rowIDs(rows))))
		}
	}
	return vs
}

func ownsID(rows []model.Row, id string) bool {
	for _, r := range rows {
		if r.ID == id {
			return true
		}
	}
	return false
}

// referenceChecks: every row's reference must point at the same action's
// row in the referenced table.
func referenceChecks(e effect.Effect, a model.Action, rows, targets []model.Row) []Finding {
	var vs []Finding
	for _, r := range rows {
		if r.RefNull || !ownsID(targets, r.Ref) {
			where := "at another action's row or at none"
			vs = append(vs, violation(BrokenReference, a, fmt.Sprintf("a row of %s points %s in %s", e.Table, where, e.References.Table),
				fmt.Sprintf("action %s: %s.%s is %q%s", a, e.Table, e.References.Column, r.Ref, rowIDs(targets))))
		}
	}
	return vs
}

func rowIDs(rows []model.Row) string {
	if len(rows) == 0 || rows[0].ID == "" {
		return ""
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = model.ShowID(r.ID)
	}
	return " (ids " + strings.Join(ids, ", ") + ")"
}
