package access

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/model/effect"
)

// TableInfo is what the catalog says about one effect table.
type TableInfo struct {
	// Found is false when the catalog could not be read for the table:
	// then every column is read with a cast and every search is a scan.
	Found bool
	// Kind is pg_class.relkind: r, p and m have row versions (xmin).
	Kind string
	cols map[string]*colInfo
	// Mark is the column whose values grow with every insert, nil if none;
	// markWhy says why there is none.
	Mark    *colInfo
	markWhy string
}

// colInfo is one column of an effect table.
type colInfo struct {
	Name    string
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

// Inspect reads the catalog for one (non-query) effect table.
func Inspect(ctx context.Context, q querier, e effect.Effect) (*TableInfo, error) {
	t := &TableInfo{cols: map[string]*colInfo{}}
	name := Ident(e.Table)
	var oid *uint32
	if err := q.QueryRow(ctx, `SELECT c.oid, c.relkind::text FROM pg_class c WHERE c.oid = to_regclass($1)`, name).Scan(&oid, &t.Kind); err != nil {
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
	t.Found = true
	t.Mark, t.markWhy = markColumn(t, e)
	return t, nil
}

// readColumns reads the table's columns: type, collation, sequence.
func readColumns(ctx context.Context, q querier, t *TableInfo, oid *uint32, name string) error {
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
		if err := rows.Scan(&c.Name, &c.typeOID, &c.textLike, &c.integer, &c.bytewise, &c.seq, &c.seqWhy); err != nil {
			rows.Close()
			return err
		}
		c.uuid = c.typeOID == uuidOID
		t.cols[c.Name] = c
	}
	return rows.Err()
}

// readIndexes reads which index serves each column, and which of them
// serves a prefix of a text column.
func readIndexes(ctx context.Context, q querier, t *TableInfo, oid *uint32) error {
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
func markColumn(t *TableInfo, e effect.Effect) (*colInfo, string) {
	candidates := []*colInfo{}
	if c := t.cols[e.ID]; c != nil {
		candidates = append(candidates, c)
	}
	for _, name := range slices.Sorted(maps.Keys(t.cols)) {
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
			why = append(why, c.Name+": "+c.seqWhy)
		case c.seq != "" && c.index == "":
			why = append(why, c.Name+": no btree index has it as its first column")
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
