package observe

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// How a plan's rows are found, at a cost that follows what the plan wrote
// and not what the table holds.
//
// A row belongs to a namespace when its tenant or key starts with it (by
// key), when its tag column contains it (by tag), or when it points at such
// a row (by join). Written naively (starts_with(col::text, $1) OR ...,
// strpos(...), IN over those) every plan scans every table: the cast and
// the OR keep any index out. So each effect table gets an access plan, read
// once from the catalog:
//
//   - A prefix is a range [ns, successor(ns)) compared in bytes, which a
//     btree index serves when it orders bytes: an index in a C or POSIX
//     collation (the column's own, or CREATE INDEX ... (col COLLATE "C")),
//     compared in that collation; or a text_pattern_ops index, compared
//     with its ~>=~ and ~<~ operators. An index in a linguistic collation
//     does not serve it: strings with one byte prefix are not contiguous
//     in, say, en_US order. Every range is rechecked with starts_with(col
//     COLLATE "C", ns), the exact byte test, so a row is found exactly when
//     it starts with the namespace, whatever the column's collation.
//   - A uuid column holding UUID keys or tenants (key_format: uuid, whose
//     text starts with the namespace's code) is searched by a range of
//     UUIDs, which any btree index on it serves: a UUID's order is that
//     of its lower-case text. The recheck casts it to text. Under fixed
//     tenants the tenant column carries no namespace, and the key alone
//     finds the rows. Each prefix is a parameter of its own (prefixes.go).
//   - Tenant and key are two disjoint branches under UNION ALL: rows whose
//     tenant is in the namespace, then rows whose key is and whose tenant
//     is not. No row is read twice, and two equal rows (duplicates are what
//     IDEM-001 counts) are both kept, which a UNION would not do.
//   - A column that no index serves, a tag (a substring no btree serves),
//     and a join column without an index are searched among the rows
//     written since the plan began: id > mark, where mark is max(id) read
//     before the plan's first call (Observer.Begin) or before the run's
//     (Observer.Baseline), and id is a sequence-assigned column with a
//     btree index. See markColumn for when that is safe.
//   - Otherwise the table is scanned, as before, and Notes says so.

// tableInfo is what the catalog says about one effect table.
type tableInfo struct {
	// found is false when the catalog could not be read for the table:
	// then every column is read with a cast and every search is a scan.
	found bool
	// kind is pg_class.relkind: r, p and m have row versions (xmin).
	kind string
	cols map[string]*colInfo
	// mark is the column whose values grow with every insert, nil if none;
	// markWhy says why there is none.
	mark    *colInfo
	markWhy string
}

// colInfo is one column of an effect table.
type colInfo struct {
	name    string
	typeOID uint32
	// textLike: text or varchar, compared without a cast.
	textLike bool
	integer  bool
	// uuid: a uuid column (whose order is that of its text).
	uuid bool
	// bytewise: the column's collation orders bytes (C, POSIX).
	bytewise bool
	// prefix is an index that serves a byte-prefix range on the column.
	prefix *prefixIndex
	// index is a valid, whole-table btree index whose first column this is.
	index string
	// seq is the name of the sequence that assigns the column's values, and
	// seqWhy why it cannot serve as a mark ("" when it can).
	seq, seqWhy string
}

type prefixIndex struct {
	name string
	// pattern: a text_pattern_ops index, compared with ~>=~ and ~<~.
	// Otherwise compared in collation (empty: the column's own).
	pattern   bool
	collation string
}

// uuidOID is the type OID of uuid, fixed in every PostgreSQL.
const uuidOID = 2950

// hasMark says whether the mark column may serve as one.
func (c *colInfo) hasMark() bool { return c != nil && c.seq != "" && c.seqWhy == "" && c.index != "" }

// inspect reads the catalog for one (non-query) effect table.
func inspect(ctx context.Context, q querier, e effect.Effect) (*tableInfo, error) {
	t := &tableInfo{cols: map[string]*colInfo{}}
	name := ident(e.Table)
	var oid *uint32
	if err := q.QueryRow(ctx, `SELECT c.oid, c.relkind::text FROM pg_class c WHERE c.oid = to_regclass($1)`, name).Scan(&oid, &t.kind); err != nil {
		if err == pgx.ErrNoRows {
			return t, nil
		}
		return t, err
	}
	if err := readColumns(ctx, q, t, oid, name); err != nil {
		return t, err
	}
	if err := readIndexes(ctx, q, t, oid); err != nil {
		return t, err
	}
	t.found = true
	t.mark, t.markWhy = markColumn(t, e)
	return t, nil
}

// readColumns reads the table's columns: type, collation, sequence.
func readColumns(ctx context.Context, q querier, t *tableInfo, oid *uint32, name string) error {
	rows, err := q.Query(ctx, `
		SELECT a.attname::text, a.atttypid::oid,
			a.atttypid IN ('text'::regtype, 'varchar'::regtype),
			a.atttypid IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype),
			`+bytewiseSQL("a.attcollation")+`,
			coalesce(seq.name, ''),
			CASE WHEN seq.name IS NULL THEN ''
				WHEN s.seqrelid IS NULL THEN 'its sequence could not be read'
				WHEN s.seqincrement < 0 THEN 'its sequence counts down'
				WHEN s.seqcycle THEN 'its sequence may cycle'
				WHEN s.seqcache > 1 THEN 'its sequence caches ' || s.seqcache || ' values per session, so ids are not handed out in order across connections'
				ELSE '' END
		FROM pg_attribute a
		LEFT JOIN LATERAL (SELECT pg_get_serial_sequence($2, a.attname) AS name) seq ON true
		LEFT JOIN pg_sequence s ON s.seqrelid = to_regclass(seq.name)
		WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped`, oid, name)
	if err != nil {
		return err
	}
	for rows.Next() {
		c := &colInfo{}
		if err := rows.Scan(&c.name, &c.typeOID, &c.textLike, &c.integer, &c.bytewise, &c.seq, &c.seqWhy); err != nil {
			rows.Close()
			return err
		}
		c.uuid = c.typeOID == uuidOID
		t.cols[c.name] = c
	}
	return rows.Err()
}

// readIndexes reads which index serves each column, and which of them
// serves a prefix of a text column.
func readIndexes(ctx context.Context, q querier, t *tableInfo, oid *uint32) error {
	// Valid, whole-table btree indexes by their first column,
	// primary key first.
	rows, err := q.Query(ctx, `
		SELECT ic.relname::text, a.attname::text, opc.opcname::text,
			i.indcollation[0] = a.attcollation,
			coalesce(quote_ident(cn.nspname) || '.' || quote_ident(co.collname), ''),
			`+bytewiseSQL("i.indcollation[0]")+`
		FROM pg_index i
		JOIN pg_class ic ON ic.oid = i.indexrelid
		JOIN pg_am am ON am.oid = ic.relam
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		JOIN pg_opclass opc ON opc.oid = i.indclass[0]
		LEFT JOIN pg_collation co ON co.oid = i.indcollation[0]
		LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
		WHERE i.indrelid = $1 AND am.amname = 'btree' AND i.indisvalid AND i.indisready
			AND i.indpred IS NULL AND i.indkey[0] <> 0
		ORDER BY i.indisprimary DESC, i.indisunique DESC, ic.relname`, oid)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var idx, col, opclass, collation string
		var sameCollation, bytewise bool
		if err := rows.Scan(&idx, &col, &opclass, &sameCollation, &collation, &bytewise); err != nil {
			return err
		}
		c := t.cols[col]
		if c == nil {
			continue
		}
		if c.index == "" {
			c.index = idx
		}
		if c.prefix != nil || !c.textLike {
			continue
		}
		switch opclass {
		case "text_pattern_ops", "varchar_pattern_ops":
			c.prefix = &prefixIndex{name: idx, pattern: true}
		case "text_ops", "varchar_ops":
			if bytewise {
				c.prefix = &prefixIndex{name: idx}
				if !sameCollation {
					c.prefix.collation = collation
				}
			}
		}
	}
	return rows.Err()
}

// bytewiseSQL is true when the collation with OID expr orders strings by
// their bytes, as C and POSIX do (and the default collation of a database
// created in one of them). The database's locale is read as JSON so that
// the query runs on servers with and without datlocprovider.
func bytewiseSQL(expr string) string {
	return `coalesce(CASE
			WHEN ` + expr + ` = 0 THEN false
			WHEN ` + expr + ` = 100 THEN (SELECT coalesce(j->>'datlocprovider', 'c') = 'c' AND j->>'datcollate' IN ('C', 'POSIX')
					OR j->>'datlocprovider' = 'b' AND j->>'datlocale' = 'C'
				FROM (SELECT to_jsonb(d) AS j FROM pg_database d WHERE d.datname = current_database()) db)
			ELSE (SELECT c.collprovider = 'c' AND c.collcollate IN ('C', 'POSIX')
					OR c.collprovider = 'b' AND to_jsonb(c)->>'colllocale' = 'C'
				FROM pg_collation c WHERE c.oid = ` + expr + `)
		END, false)`
}

// markColumn picks the column whose values mark where a plan's rows begin:
// an integer column whose values a sequence assigns (serial, bigserial, or
// an identity column), with a btree index that finds id > mark without a
// scan. The effect's own id column is preferred, then the others by name.
//
// Why id > mark finds every row a plan writes: mark is max(id) read before
// the plan's first call. A sequence hands out each value once, in
// increasing order, and the value is taken when the row is inserted, so a
// row inserted after the mark was read has a greater id than any row
// visible then. That holds only if the sequence increases (no negative
// increment), never wraps (no CYCLE), hands values out one at a time (CACHE
// 1: with a cache, each connection takes a block and ids are not in order
// across connections), and the service lets it assign the ids (a serial
// column accepts explicit ids). The first three are read from the catalog
// here; a column that fails them is not used, and the table is scanned
// instead (Notes says so). The last cannot be read from the catalog: the
// baseline after the run counts, by a scan it makes anyway, the run's rows
// the marks did not find, and Notes says so when there are any.
func markColumn(t *tableInfo, e effect.Effect) (*colInfo, string) {
	candidates := []*colInfo{}
	if c := t.cols[e.ID]; c != nil {
		candidates = append(candidates, c)
	}
	for _, name := range sortedKeys(t.cols) {
		if name != e.ID {
			candidates = append(candidates, t.cols[name])
		}
	}
	var why []string
	for _, c := range candidates {
		switch {
		case c.hasMark() && c.integer:
			return c, ""
		case c.seq != "" && c.seqWhy != "":
			why = append(why, c.name+": "+c.seqWhy)
		case c.seq != "" && c.index == "":
			why = append(why, c.name+": no btree index has it as its first column")
		}
	}
	if len(why) == 0 {
		return nil, "no column takes its values from a sequence (serial, bigserial or identity)"
	}
	return nil, strings.Join(why, "; ")
}

// querier is what inspect reads the catalog with.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

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

// marks are the values of the mark columns, by table, before a plan (or a
// run) began: nil for a table that was empty then.
type marks map[string]*int64

// finder builds the conditions that find a namespace's rows.
type finder struct {
	info    map[string]*tableInfo
	byTable map[string]effect.Effect
	marks   marks // nil: no marks, search whole tables
	a       *args
	// c says how namespace space stands in keys, tenants and tags (the
	// contract's identifier formats, fixed tenants).
	c     model.Contract
	space model.Namespace
}

// asText is a column as text, cast when it is not text already; in a
// query effect's result, whose types are unknown, always cast.
func (f *finder) asText(e effect.Effect, col string) string {
	if c := f.col(e, col); c != nil && c.textLike {
		return ident(col)
	}
	return ident(col) + "::text"
}

func (f *finder) col(e effect.Effect, col string) *colInfo {
	if t := f.info[e.Table]; t != nil && e.Query == "" {
		return t.cols[col]
	}
	return nil
}

// startsWith is the exact test: the column's bytes start with the
// namespace. COLLATE "C" makes it a byte comparison in any collation (a
// nondeterministic one refuses starts_with otherwise).
func (f *finder) startsWith(e effect.Effect, col string) string {
	return fmt.Sprintf(`starts_with(%s COLLATE "C", %s)`, f.asText(e, col), f.nsArg(e, col))
}

// prefix is startsWith with, in front of it, a range an index serves, when
// the column has such an index; indexed says whether it has.
func (f *finder) prefix(e effect.Effect, col string) (cond string, indexed bool) {
	exact := f.startsWith(e, col)
	if !f.indexed(e, col) {
		return exact, false
	}
	c := f.col(e, col)
	ns, _ := f.nsOf(e, col)
	if c.prefix == nil {
		// A uuid column: a range of UUIDs, whose order is that of their text.
		lo, hi, _ := uuidRange(ns)
		id := ident(col)
		return fmt.Sprintf("%s >= %s::uuid AND %s < %s::uuid AND %s", id, f.a.add("lo:"+col, lo), id, f.a.add("hi:"+col, hi), exact), true
	}
	hi, _ := successor(ns)
	lo, up, id := f.nsArg(e, col), f.a.add("hi:"+col, hi), ident(col)
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
func (f *finder) since(e effect.Effect) (cond string, ok bool) {
	t := f.info[e.Table]
	if t == nil || t.mark == nil || f.marks == nil {
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
	col := ident(t.mark.name)
	return fmt.Sprintf("%s > %s::bigint AND %s <= %s::bigint", col, f.a.add("mark:"+e.Table, *m), col, f.a.add("maxint", int64(math.MaxInt64))), true
}

// branches are disjoint conditions whose rows together are the effect's
// rows in the namespace, each one an index can serve where the table has
// the index (see the comment at the top of this file).
func (f *finder) branches(e effect.Effect) []string {
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
func (f *finder) joinIn(e effect.Effect) string {
	ref := f.byTable[e.Join.Table]
	col, refID := f.joinCols(e)
	var subs []string
	for _, b := range f.branches(ref) {
		subs = append(subs, fmt.Sprintf("SELECT %s FROM %s WHERE %s", refID, source(ref), b))
	}
	return fmt.Sprintf("%s IN (%s)", col, strings.Join(subs, " UNION ALL "))
}

// joinCols are the join column and the id it points at, as compared: both
// cast to text when their types do not compare as they are.
func (f *finder) joinCols(e effect.Effect) (col, refID string) {
	ref := f.byTable[e.Join.Table]
	col, refID = ident(e.Join.Column), ident(ref.ID)
	if !f.comparable(e, ref) {
		col, refID = col+"::text", refID+"::text"
	}
	return col, refID
}

func (f *finder) sinceCond(e effect.Effect) string {
	c, _ := f.since(e)
	return c
}

// comparable says whether a join column and the id it points at compare
// without casts (and so through an index): the same type, or two integers.
func (f *finder) comparable(e, ref effect.Effect) bool {
	c, r := f.col(e, e.Join.Column), f.col(ref, ref.ID)
	return c != nil && r != nil && (c.typeOID == r.typeOID || c.integer && r.integer)
}

func (f *finder) joinIndexed(e, ref effect.Effect) bool {
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

// inNamespace is one condition for "the row is in the namespace", exact and
// for use on rows already at hand (a scan's filter): no index in mind.
func (f *finder) inNamespace(e effect.Effect) string {
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

// needsMark says whether finding the effect's rows uses its mark column.
func (f *finder) needsMark(e effect.Effect) bool {
	t := f.info[e.Table]
	if t == nil || t.mark == nil || e.Query != "" {
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
func (f *finder) indexed(e effect.Effect, col string) bool {
	c := f.col(e, col)
	ns, _ := f.nsOf(e, col)
	if c != nil && c.prefix == nil && c.uuid && c.index != "" {
		_, _, ok := uuidRange(ns)
		return ok
	}
	_, ok := successor(ns)
	return c != nil && c.prefix != nil && ok
}
