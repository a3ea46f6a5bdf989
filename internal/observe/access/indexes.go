package access

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// IndexAdvice says how a plan's rows are found in one effect table, and
// which index it lacks for that to cost what the plan wrote rather than
// what the table holds.
type IndexAdvice struct {
	Table string
	// OK: every search the table needs is served by an index, or by a
	// mark (rows written since the plan began, see markColumn).
	OK bool
	// Create holds the statements that would add what is missing.
	Create []string
	// Detail says what serves each search, and what is missing.
	Detail string
}

// String is one line: "ok: ..." or "MISSING: CREATE INDEX ...; ...".
func (a IndexAdvice) String() string {
	if a.OK {
		return "ok: " + a.Detail
	}
	if len(a.Create) == 0 {
		return "MISSING: " + a.Detail
	}
	return "MISSING: " + strings.Join(a.Create, "; ") + " (" + a.Detail + ")"
}

// ScanNote is the note for a table whose rows are searched by a scan for
// every plan, "" for a table that needs none.
func ScanNote(c model.Contract, e effect.Effect, info map[string]*TableInfo, byTable map[string]effect.Effect) string {
	a := Advise(c, e, info, byTable)
	if a.OK || e.Query != "" {
		return ""
	}
	return fmt.Sprintf("observer: %s is scanned whole for every plan; to read only each plan's rows: %s", e.Table, strings.TrimPrefix(a.String(), "MISSING: "))
}

// Advise says how observation finds e's rows and which index it lacks.
func Advise(c model.Contract, e effect.Effect, info map[string]*TableInfo, byTable map[string]effect.Effect) IndexAdvice {
	a := IndexAdvice{Table: e.Table, OK: true}
	if e.Query != "" {
		a.Detail = e.Table + " is a query: its own WHERE on $1 decides what it reads"
		return a
	}
	t := info[e.Table]
	if t == nil || !t.Found {
		a.OK = false
		a.Detail = e.Table + ": its indexes could not be read from the catalog; each plan scans it"
		return a
	}
	if t.Kind != "r" && t.Kind != "p" && t.Kind != "m" {
		a.OK = false
		a.Detail = sqlName(e.Table) + " is not a table (a view?): each plan searches the whole of it; name the tables it reads in the contract, or give it a query: that uses their indexes"
		return a
	}
	v := &advisor{IndexAdvice: a, e: e, t: t, byTable: byTable, f: NewFinder(c, info, byTable, nil, "x-")}
	switch e.Attribution() {
	case effect.ByTag:
		v.byTag()
	case effect.ByJoin:
		v.byJoin()
	default:
		v.byKey()
	}
	return v.advice()
}

// advisor gathers, for one table, what serves each search of its rows
// and what is missing.
type advisor struct {
	IndexAdvice
	e               effect.Effect
	t               *TableInfo
	byTable         map[string]effect.Effect
	f               *Finder
	served, missing []string
}

// bySince says whether the table's mark serves the search for what (rows
// written since the plan began), and notes it when it does.
func (v *advisor) bySince(what string) bool {
	if v.t.Mark == nil {
		return false
	}
	v.served = append(v.served, fmt.Sprintf("%s is searched among the rows written since the plan began, by %s > its value then (%s)",
		what, sqlName(v.t.Mark.Name), v.t.Mark.index))
	return true
}

// need notes that col lacks an index and how to create one.
func (v *advisor) need(col, what string) {
	v.OK = false
	v.Create = append(v.Create, createIndex(v.e.Table, v.t.cols[col]))
	if c := v.t.cols[col]; c == nil || c.index == "" {
		// A composite index on (tenant, key) serves the tenant only:
		// say why it does not count for the key.
		v.missing = append(v.missing, fmt.Sprintf("%s leads no whole-table btree index (an index serves a prefix of its first column only)", what))
		return
	}
	v.missing = append(v.missing, fmt.Sprintf("%s has no index that serves a prefix%s", what, collationWhy(v.t.cols[col])))
}

// byTag: a tag is a substring, found only among the rows since the plan
// began.
func (v *advisor) byTag() {
	e, t := v.e, v.t
	if v.bySince(fmt.Sprintf("(%s), holding the tag,", sqlName(e.Tag))) {
		return
	}
	v.OK = false
	for _, name := range slices.Sorted(maps.Keys(t.cols)) {
		if c := t.cols[name]; c.seq != "" && c.seqWhy == "" && c.integer && c.index == "" {
			v.Create = append(v.Create, createIndex(e.Table, c))
			break
		}
	}
	v.missing = append(v.missing, fmt.Sprintf("a tag inside %s is a substring no btree index finds, and %s has no column to search only the rows written since the plan began (%s); give it a sequence-assigned id with an index, e.g. id bigserial PRIMARY KEY",
		sqlName(e.Tag), sqlName(e.Table), t.markWhy))
}

// byJoin: the join column needs an index comparable with the ID it
// points at, or the mark.
func (v *advisor) byJoin() {
	e, t := v.e, v.t
	ref := v.byTable[e.Join.Table]
	col := t.cols[e.Join.Column]
	what := "(" + sqlName(e.Join.Column) + ")"
	switch {
	case v.f.joinIndexed(e, ref):
		v.served = append(v.served, fmt.Sprintf("%s has %s", what, col.index))
	case !v.f.comparable(e, ref):
		if !v.bySince(what) {
			v.OK = false
			v.missing = append(v.missing, fmt.Sprintf("%s and %s.%s differ in type, so they are compared as text, which no index serves, and %s has no sequence-assigned id with an index (%s)",
				what, sqlName(ref.Table), sqlName(ref.ID), sqlName(e.Table), t.markWhy))
		}
	case !v.bySince(what):
		v.OK = false
		v.Create = append(v.Create, createIndex(e.Table, col))
		v.missing = append(v.missing, fmt.Sprintf("%s has no index, and %s no sequence-assigned id with one (%s)", what, sqlName(e.Table), t.markWhy))
	}
}

// byKey: the tenant and key columns each need an index serving a prefix
// (or a range of UUIDs), or the mark.
func (v *advisor) byKey() {
	e := v.e
	cols := []string{e.Tenant, e.Key}
	if !v.f.tenantNamespaced(e) {
		cols = cols[1:] // fixed tenants: the key alone finds the rows
	}
	for _, col := range cols {
		what := "(" + sqlName(col) + ")"
		switch c := v.t.cols[col]; {
		case c != nil && c.prefix != nil:
			v.served = append(v.served, fmt.Sprintf("%s has %s", what, c.prefix.name))
		case c != nil && v.f.indexed(e, col):
			v.served = append(v.served, fmt.Sprintf("%s has %s (a range of UUIDs)", what, c.index))
		case !v.bySince(what):
			v.need(col, what)
		}
	}
}

// advice is the IndexAdvice with its detail written.
func (v *advisor) advice() IndexAdvice {
	a := v.IndexAdvice
	name := sqlName(v.e.Table)
	if len(v.missing) == 0 {
		a.Detail = name + " " + strings.Join(v.served, "; ")
		return a
	}
	a.Detail = name + ": " + strings.Join(v.missing, "; ") + "; until then each plan scans it"
	if len(v.served) > 0 {
		a.Detail += " (" + strings.Join(v.served, "; ") + ")"
	}
	return a
}

// createIndex is the statement that gives col an index a prefix or a join
// can use: a text column in a collation that does not order bytes gets an
// index in "C", which does.
func createIndex(table string, c *colInfo) string {
	if c == nil {
		return ""
	}
	col := sqlName(c.Name)
	if c.textLike && !c.bytewise {
		col += ` COLLATE "C"`
	}
	return fmt.Sprintf("CREATE INDEX ON %s (%s)", sqlName(table), col)
}

func collationWhy(c *colInfo) string {
	if c != nil && c.textLike && !c.bytewise && c.index != "" {
		return fmt.Sprintf(" (%s orders by a collation, not by bytes)", c.index)
	}
	return ""
}

var plainName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// sqlName shows a possibly schema-qualified name as SQL, quoted only where
// it has to be.
func sqlName(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		if !plainName.MatchString(p) {
			parts[i] = pgx.Identifier{p}.Sanitize()
		}
	}
	return strings.Join(parts, ".")
}
