package access

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// args numbers the parameters of one query; $1 is always the namespace
// as the keys carry it (the namespace itself unless a key format says
// otherwise), which a query effect's own WHERE reads.
type args struct {
	vals []any
	at   map[string]string
}

func newArgs(keyPrefix string) *args {
	return &args{vals: []any{keyPrefix}, at: map[string]string{"ns": "$1"}}
}

// add returns the placeholder of the value named key, adding it once.
func (a *args) add(key string, v any) string {
	if p, ok := a.at[key]; ok {
		return p
	}
	a.vals = append(a.vals, v)
	p := "$" + strconv.Itoa(len(a.vals))
	a.at[key] = p
	return p
}

// Marks are the values of the mark columns, by table, before a plan (or a
// run) began: nil for a table that was empty then.
type Marks map[string]*int64

// Finder builds the conditions that find a namespace's rows.
type Finder struct {
	info    map[string]*TableInfo
	byTable map[string]effect.Effect
	marks   Marks // nil: no marks, search whole tables
	a       *args
	// c says how namespace space stands in keys, tenants and tags (the
	// contract's identifier formats, fixed tenants).
	c     model.Contract
	space model.Namespace
}

// Vals are the values of the parameters the conditions built so far use,
// $1 first: a query's arguments.
func (f *Finder) Vals() []any { return f.a.vals }

// Add returns the placeholder of a value of the caller's own, named key,
// adding it once, for a condition it writes beside the Finder's.
func (f *Finder) Add(key string, v any) string { return f.a.add(key, v) }

// asText is a column as text, cast when it is not text already; in a
// query effect's result, whose types are unknown, always cast.
func (f *Finder) asText(e effect.Effect, col string) string {
	if c := f.col(e, col); c != nil && c.textLike {
		return Ident(col)
	}
	return Ident(col) + "::text"
}

func (f *Finder) col(e effect.Effect, col string) *colInfo {
	if t := f.info[e.Table]; t != nil && e.Query == "" {
		return t.cols[col]
	}
	return nil
}

// startsWith is the exact test: the column's bytes start with the
// namespace. COLLATE "C" makes it a byte comparison in any collation (a
// nondeterministic one refuses starts_with otherwise).
func (f *Finder) startsWith(e effect.Effect, col string) string {
	return fmt.Sprintf(`starts_with(%s COLLATE "C", %s)`, f.asText(e, col), f.nsArg(e, col))
}

// prefix is startsWith with, in front of it, a range an index serves, when
// the column has such an index; indexed says whether it has.
func (f *Finder) prefix(e effect.Effect, col string) (cond string, indexed bool) {
	exact := f.startsWith(e, col)
	if !f.indexed(e, col) {
		return exact, false
	}
	c := f.col(e, col)
	ns, _ := f.nsOf(e, col)
	if c.prefix == nil {
		// A uuid column: a range of UUIDs, whose order is that of their text.
		lo, hi, _ := uuidRange(ns)
		id := Ident(col)
		return fmt.Sprintf("%s >= %s::uuid AND %s < %s::uuid AND %s", id, f.a.add("lo:"+col, lo), id, f.a.add("hi:"+col, hi), exact), true
	}
	hi, _ := successor(ns)
	lo, up, id := f.nsArg(e, col), f.a.add("hi:"+col, hi), Ident(col)
	if c.prefix.pattern {
		return fmt.Sprintf("%s ~>=~ %s AND %s ~<~ %s AND %s", id, lo, id, up, exact), true
	}
	if c.prefix.collation != "" {
		id += " COLLATE " + c.prefix.collation
	}
	return fmt.Sprintf("%s >= %s AND %s < %s AND %s", id, lo, id, up, exact), true
}

// successor is the least string greater than every string that starts
// with ns, in byte order: ns with its last byte incremented. Only for an
// ASCII namespace (every namespace idemstress makes is one), so that the
// result is valid in any server encoding; a trailing DEL (0x7f) is dropped
// first, as nothing ASCII follows it.
func successor(ns string) (string, bool) {
	for i := 0; i < len(ns); i++ {
		if ns[i] == 0 || ns[i] > 0x7f {
			return "", false
		}
	}
	s := strings.TrimRight(ns, "\x7f")
	if s == "" {
		return "", false
	}
	return s[:len(s)-1] + string(s[len(s)-1]+1), true
}

// since is the condition "written since the mark", "" when the table has
// no mark column, no mark was read, or it was empty then (every row is
// new: no condition needed, and the table was empty).
func (f *Finder) since(e effect.Effect) (cond string, ok bool) {
	t := f.info[e.Table]
	if t == nil || t.Mark == nil || f.marks == nil {
		return "", false
	}
	m, read := f.marks[e.Table]
	if !read {
		return "", false
	}
	if m == nil {
		return "", true
	}
	// A closed range, so that a generic plan (see Observe) estimates it
	// as narrow and takes the index: id > $m alone is estimated at a third
	// of the table.
	col := Ident(t.Mark.Name)
	return fmt.Sprintf("%s > %s::bigint AND %s <= %s::bigint", col, f.a.add("mark:"+e.Table, *m), col, f.a.add("maxint", int64(math.MaxInt64))), true
}

// branches are disjoint conditions whose rows together are the effect's
// rows in the namespace, each one an index can serve where the table has
// the index (see the package doc).
func (f *Finder) branches(e effect.Effect) []string {
	switch e.Attribution() {
	case effect.ByTag:
		return []string{and(f.sinceCond(e), fmt.Sprintf(`strpos(%s COLLATE "C", %s) > 0`, f.asText(e, e.Tag), f.tagArg()))}
	case effect.ByJoin:
		in := f.joinIn(e)
		if f.joinIndexed(e, f.byTable[e.Join.Table]) {
			return []string{in}
		}
		return []string{and(f.sinceCond(e), in)}
	default:
		if !f.tenantNamespaced(e) {
			// Fixed tenants: the key alone carries the namespace.
			if key, kIdx := f.prefix(e, e.Key); kIdx {
				return []string{key}
			}
			return []string{and(f.sinceCond(e), f.startsWith(e, e.Key))}
		}
		if e.Query != "" {
			return []string{fmt.Sprintf("(%s OR %s)", f.startsWith(e, e.Tenant), f.startsWith(e, e.Key))}
		}
		tenant, tIdx := f.prefix(e, e.Tenant)
		key, kIdx := f.prefix(e, e.Key)
		notTenant := fmt.Sprintf("NOT coalesce(%s, false)", f.startsWith(e, e.Tenant))
		notKey := fmt.Sprintf("NOT coalesce(%s, false)", f.startsWith(e, e.Key))
		switch {
		case tIdx && kIdx:
			return []string{tenant, and(key, notTenant)}
		case tIdx:
			return []string{tenant, and(f.sinceCond(e), f.startsWith(e, e.Key), notTenant)}
		case kIdx:
			return []string{key, and(f.sinceCond(e), f.startsWith(e, e.Tenant), notKey)}
		}
		return []string{and(f.sinceCond(e), fmt.Sprintf("(%s OR %s)", tenant, key))}
	}
}

// joinIn is the condition that a joined row points at a row of the
// namespace in the table it joins, found by that table's branches.
func (f *Finder) joinIn(e effect.Effect) string {
	ref := f.byTable[e.Join.Table]
	col, refID := f.JoinCols(e)
	var subs []string
	for _, b := range f.branches(ref) {
		subs = append(subs, fmt.Sprintf("SELECT %s FROM %s WHERE %s", refID, source(ref), b))
	}
	return fmt.Sprintf("%s IN (%s)", col, strings.Join(subs, " UNION ALL "))
}

// JoinCols are the join column and the id it points at, as compared: both
// cast to text when their types do not compare as they are.
func (f *Finder) JoinCols(e effect.Effect) (col, refID string) {
	ref := f.byTable[e.Join.Table]
	col, refID = Ident(e.Join.Column), Ident(ref.ID)
	if !f.comparable(e, ref) {
		col, refID = col+"::text", refID+"::text"
	}
	return col, refID
}

func (f *Finder) sinceCond(e effect.Effect) string {
	c, _ := f.since(e)
	return c
}

// comparable says whether a join column and the id it points at compare
// without casts (and so through an index): the same type, or two integers.
func (f *Finder) comparable(e, ref effect.Effect) bool {
	c, r := f.col(e, e.Join.Column), f.col(ref, ref.ID)
	return c != nil && r != nil && (c.typeOID == r.typeOID || c.integer && r.integer)
}

func (f *Finder) joinIndexed(e, ref effect.Effect) bool {
	c := f.col(e, e.Join.Column)
	return f.comparable(e, ref) && c.index != ""
}

// and joins the non-empty conditions.
func and(conds ...string) string {
	var keep []string
	for _, c := range conds {
		if c != "" {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return "true"
	}
	return strings.Join(keep, " AND ")
}

// InNamespace is one condition for "the row is in the namespace", exact and
// for use on rows already at hand (a scan's filter): no index in mind.
func (f *Finder) InNamespace(e effect.Effect) string {
	switch e.Attribution() {
	case effect.ByTag:
		return fmt.Sprintf(`strpos(%s COLLATE "C", %s) > 0`, f.asText(e, e.Tag), f.tagArg())
	case effect.ByJoin:
		return f.joinIn(e)
	default:
		if !f.tenantNamespaced(e) {
			return f.startsWith(e, e.Key)
		}
		return fmt.Sprintf("(%s OR %s)", f.startsWith(e, e.Tenant), f.startsWith(e, e.Key))
	}
}

// NeedsMark says whether finding the effect's rows uses its mark column.
func (f *Finder) NeedsMark(e effect.Effect) bool {
	t := f.info[e.Table]
	if t == nil || t.Mark == nil || e.Query != "" {
		return false
	}
	switch e.Attribution() {
	case effect.ByTag:
		return true
	case effect.ByJoin:
		return !f.joinIndexed(e, f.byTable[e.Join.Table])
	default:
		return f.tenantNamespaced(e) && !f.indexed(e, e.Tenant) || !f.indexed(e, e.Key)
	}
}

// indexed says whether an index serves the namespace prefix on col: a
// prefix index on a text column, or any btree index on a uuid column
// whose values the namespace begins (a UUID key or tenant).
func (f *Finder) indexed(e effect.Effect, col string) bool {
	c := f.col(e, col)
	ns, _ := f.nsOf(e, col)
	if c != nil && c.prefix == nil && c.uuid && c.index != "" {
		_, _, ok := uuidRange(ns)
		return ok
	}
	_, ok := successor(ns)
	return c != nil && c.prefix != nil && ok
}

// source is what an effect reads from: its table, or its query.
func source(e effect.Effect) string {
	if e.Query != "" {
		return "(" + e.Query + ") AS q"
	}
	return Ident(e.Table)
}

// RowsQuery selects cols from the effect's rows in the namespace: one
// SELECT per branch, under UNION ALL.
func RowsQuery(e effect.Effect, f *Finder, cols string) string {
	var parts []string
	for _, b := range f.branches(e) {
		parts = append(parts, fmt.Sprintf("SELECT %s FROM %s WHERE %s", cols, source(e), b))
	}
	return strings.Join(parts, "\nUNION ALL\n")
}

// ident quotes a possibly schema-qualified name.
func Ident(name string) string {
	return pgx.Identifier(strings.Split(name, ".")).Sanitize()
}
