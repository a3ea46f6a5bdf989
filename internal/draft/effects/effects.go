package effects

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/idemstress/idemstress/internal/draft"
	"github.com/idemstress/idemstress/internal/draft/calls"
)

// drafter is the draft whose effects are being filled.
type drafter struct{ *draft.Draft }

// effects drafts one effect per table the call wrote.
func (d drafter) effects(order []string, byTable map[string][]row, fks []fk, pks map[string]string, tenant, key string, a calls.Answer) {
	main := mainFirst(order, byTable, fks)
	idCol := d.id(main, byTable[main][0].cols, pks[main], tenant, key, a)
	idOf := func(table string) string { return either(table == main, idCol, pks[table]) }
	leaves := draft.PayloadLeaves("", d.Payload)
	attributed := map[string]bool{}
	for i, t := range order {
		p := fmt.Sprintf("effects[%d]", i)
		r := byTable[t][0]
		e := draft.Effect{Table: t, PerAction: len(byTable[t])}
		if e.PerAction > 1 {
			d.Note(p+".per_action", "guessed: the create call wrote %d rows here", e.PerAction)
		}
		skip := map[string]bool{pks[t]: true}
		e.Tenant, e.Key = identityColumns(r.cols, tenant, key, skip)
		d.link(p, &e, fks, byTable, idOf, attributed, skip)
		switch {
		case e.Join != nil:
		case e.Tenant == "" && e.Key != "" && d.KeyScope == "global":
		case e.Tenant == "" || e.Key == "":
			if e.Tenant == "" {
				d.Note(p+".tenant", "no column of %s held the tenant sent (%s)", t, tenant)
			}
			if e.Key == "" {
				d.Note(p+".key", "no column of %s held the key sent (%s); name it, or attribute rows by a tag: or a join: (docs/contract.md)", t, key)
			}
		}
		if e.Join != nil || e.Tenant != "" && e.Key != "" {
			attributed[t] = true
		}
		if t == main && d.ID != "" {
			e.ID = idCol
		}
		e.Fields = fieldsOf(r.cols, skip, leaves)
		if len(e.Fields) > 0 {
			d.Note(p+".fields", "guessed: columns named like a payload field that hold its value")
		}
		d.Effects = append(d.Effects, e)
	}
}

// mainFirst sorts the written tables with the main one first, and returns
// it: the one the others reference most, then the first.
func mainFirst(order []string, byTable map[string][]row, fks []fk) string {
	referenced := map[string]int{}
	for _, f := range fks {
		if byTable[f.table] != nil && byTable[f.target] != nil {
			referenced[f.target]++
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return referenced[order[i]] > referenced[order[j]] })
	return order[0]
}

// identityColumns names the columns of a row that hold the tenant and the
// key sent, and marks them in skip so they are not taken for fields.
func identityColumns(cols map[string]any, tenant, key string, skip map[string]bool) (tenantCol, keyCol string) {
	for _, c := range slices.Sorted(maps.Keys(cols)) {
		switch cols[c] {
		case tenant:
			tenantCol, skip[c] = c, true
		case key:
			keyCol, skip[c] = c, true
		}
	}
	return tenantCol, keyCol
}

// link drafts e's references: (when its rows carry the key) or join:
// (when they do not) from a foreign key to a table already attributed,
// and marks every foreign key column to a written table in skip.
func (d drafter) link(p string, e *draft.Effect, fks []fk, byTable map[string][]row, idOf func(string) string, attributed, skip map[string]bool) {
	for _, f := range fks {
		if f.table != e.Table || byTable[f.target] == nil {
			continue
		}
		skip[f.column] = true
		// references: and join: compare with the other effect's id
		// column: a key naming another column of it (payments.id while
		// the answers carry psp_reference) would never match
		if id := idOf(f.target); f.to != id {
			d.Note(p, "the foreign key %s.%s names %s.%s, not the column the effect's id is (%s): left out, since references: and join: compare with that", e.Table, f.column, f.target, f.to, id)
			continue
		}
		ref := &draft.Ref{Column: f.column, Table: f.target}
		switch {
		case e.Tenant != "" && e.Key != "" && attributed[f.target] && e.References == nil:
			e.References = ref
			d.Note(p+".references", "the foreign key %s.%s", e.Table, f.column)
		case (e.Tenant == "" || e.Key == "") && attributed[f.target] && e.Join == nil:
			e.Join = ref
			d.Note(p+".join", "guessed: no key column here; rows belong to the action of the %s row their foreign key %s names", f.target, f.column)
		}
	}
}

// fieldsOf maps each column not in skip that holds a payload field's
// value, and is named like it, to that field's pointer.
func fieldsOf(cols map[string]any, skip map[string]bool, leaves map[string]any) map[string]string {
	fields := map[string]string{}
	for _, c := range slices.Sorted(maps.Keys(cols)) {
		if skip[c] {
			continue
		}
		if ptr := fieldOf(c, cols[c], leaves); ptr != "" {
			fields[c] = ptr
		}
	}
	return fields
}

// fieldOf is the payload field a column holds: one named like the column
// (amount_money/amount for amount) with the same value.
func fieldOf(column string, v any, leaves map[string]any) string {
	norm := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s)) }
	var found []string
	for ptr, l := range leaves {
		last := ptr[strings.LastIndexByte(ptr, '/')+1:]
		if norm(last) == norm(column) && text(l) == text(v) && text(v) != "" {
			found = append(found, ptr)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

func either[T any](cond bool, yes, no T) T {
	if cond {
		return yes
	}
	return no
}
