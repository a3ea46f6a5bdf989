package draft

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/model/payloads"
)

// row is one row a call wrote: its table, its transaction and its columns.
type row struct {
	table string
	xmin  string
	cols  map[string]any
}

// Observe makes one create call under tenant ns+"A" and key ns+"k1", finds
// the rows its transaction wrote (the transactions whose rows hold the
// namespace, and every row those transactions wrote, in every table the
// role may read), and drafts the effects: which columns hold the tenant,
// the key and the payload's fields, which rows reference which, and where
// the answer carries the row's ID. It reads only; the call writes one
// action's rows.
func (d *Draft) Observe(ctx context.Context, pool *pgxpool.Pool, client *http.Client, ns string) (answer, error) {
	tables, err := userTables(ctx, pool)
	if err != nil {
		return answer{}, err
	}
	var xmax uint64
	if err := pool.QueryRow(ctx, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint`).Scan(&xmax); err != nil {
		return answer{}, fmt.Errorf("draft: read the database's transaction counter: %w", err)
	}
	tenant, key := ns+"A", ns+"k1"
	a, err := d.send(ctx, client, d.modelRules(), tenant, key, 0)
	if err != nil {
		return a, err
	}
	if a.Status/100 != 2 {
		return a, fmt.Errorf("draft: the create call was answered %d, not 2xx: %.300s", a.Status, a.Body)
	}
	rows, err := newRows(ctx, pool, tables, xmax)
	if err != nil {
		return a, err
	}
	// The call's transactions are those whose rows hold the namespace.
	xids := map[string]bool{}
	for _, r := range rows {
		for _, v := range r.cols {
			if s, ok := v.(string); ok && strings.HasPrefix(s, ns) {
				xids[r.xmin] = true
			}
		}
	}
	byTable := map[string][]row{}
	var order []string
	for _, r := range rows {
		if xids[r.xmin] {
			if byTable[r.table] == nil {
				order = append(order, r.table)
			}
			byTable[r.table] = append(byTable[r.table], r)
		}
	}
	if len(order) == 0 {
		return a, fmt.Errorf("draft: the create call was answered %d, but no table this role may read gained a row holding its tenant %q or key %q", a.Status, tenant, key)
	}
	fks, err := foreignKeys(ctx, pool)
	if err != nil {
		return a, err
	}
	pks, err := primaryKeys(ctx, pool)
	if err != nil {
		return a, err
	}
	d.effects(order, byTable, fks, pks, tenant, key, a)
	return a, nil
}

// userTables lists the ordinary tables outside the system schemas that the
// role may read, as regclass names (schema-qualified off the search path).
func userTables(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	rs, err := pool.Query(ctx, `SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
		AND has_table_privilege(c.oid, 'SELECT') ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("draft: list the tables: %w", err)
	}
	return pgx.CollectRows(rs, pgx.RowTo[string])
}

// newRows reads the rows written since xmax, in one read-only transaction
// (each table read whole: init runs once, not per plan).
func newRows(ctx context.Context, pool *pgxpool.Pool, tables []string, xmax uint64) ([]row, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return nil, fmt.Errorf("draft: read the new rows: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read-only
	var out []row
	for _, t := range tables {
		// xmin is 32 bits; xmax's low 32 bits are the first transaction after the snapshot.
		rs, err := tx.Query(ctx, `SELECT t.xmin::text, row_to_json(t)::text FROM `+t+` t WHERE t.xmin::text::bigint >= $1 LIMIT 1000`, int64(xmax%(1<<32)))
		if err != nil {
			return nil, fmt.Errorf("draft: read the new rows of %s: %w", t, err)
		}
		for rs.Next() {
			var xmin, js string
			if err := rs.Scan(&xmin, &js); err != nil {
				rs.Close()
				return nil, fmt.Errorf("draft: read the new rows of %s: %w", t, err)
			}
			cols := map[string]any{}
			dec := json.NewDecoder(strings.NewReader(js))
			dec.UseNumber()
			if err := dec.Decode(&cols); err != nil {
				rs.Close()
				return nil, fmt.Errorf("draft: a row of %s: %w", t, err)
			}
			out = append(out, row{t, xmin, cols})
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return nil, fmt.Errorf("draft: read the new rows of %s: %w", t, err)
		}
	}
	return out, nil
}

// fk is a single-column foreign key: table.column names target.to.
type fk struct{ table, column, target, to string }

func foreignKeys(ctx context.Context, pool *pgxpool.Pool) ([]fk, error) {
	rs, err := pool.Query(ctx, `SELECT c.conrelid::regclass::text, a.attname::text, c.confrelid::regclass::text, t.attname::text
		FROM pg_constraint c
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
		JOIN pg_attribute t ON t.attrelid = c.confrelid AND t.attnum = c.confkey[1]
		WHERE c.contype = 'f' AND cardinality(c.conkey) = 1 ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("draft: read the foreign keys: %w", err)
	}
	return pgx.CollectRows(rs, func(r pgx.CollectableRow) (fk, error) {
		var f fk
		return f, r.Scan(&f.table, &f.column, &f.target, &f.to)
	})
}

func primaryKeys(ctx context.Context, pool *pgxpool.Pool) (map[string]string, error) {
	rs, err := pool.Query(ctx, `SELECT i.indrelid::regclass::text, a.attname::text FROM pg_index i
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		WHERE i.indisprimary AND i.indnatts = 1`)
	if err != nil {
		return nil, fmt.Errorf("draft: read the primary keys: %w", err)
	}
	out := map[string]string{}
	for rs.Next() {
		var t, c string
		if err := rs.Scan(&t, &c); err != nil {
			return nil, err
		}
		out[t] = c
	}
	return out, rs.Err()
}

// effects drafts one effect per table the call wrote.
func (d *Draft) effects(order []string, byTable map[string][]row, fks []fk, pks map[string]string, tenant, key string, a answer) {
	main := mainFirst(order, byTable, fks)
	idCol := d.id(main, byTable[main][0].cols, pks[main], tenant, key, a)
	idOf := func(table string) string { return either(table == main, idCol, pks[table]) }
	leaves := payloadLeaves("", d.Payload)
	attributed := map[string]bool{}
	for i, t := range order {
		p := fmt.Sprintf("effects[%d]", i)
		r := byTable[t][0]
		e := effect{Table: t, PerAction: len(byTable[t])}
		if e.PerAction > 1 {
			d.note(p+".per_action", "guessed: the create call wrote %d rows here", e.PerAction)
		}
		skip := map[string]bool{pks[t]: true}
		e.Tenant, e.Key = identityColumns(r.cols, tenant, key, skip)
		d.link(p, &e, fks, byTable, idOf, attributed, skip)
		switch {
		case e.Join != nil:
		case e.Tenant == "" && e.Key != "" && d.KeyScope == "global":
		case e.Tenant == "" || e.Key == "":
			if e.Tenant == "" {
				d.note(p+".tenant", "no column of %s held the tenant sent (%s)", t, tenant)
			}
			if e.Key == "" {
				d.note(p+".key", "no column of %s held the key sent (%s); name it, or attribute rows by a tag: or a join: (docs/contract.md)", t, key)
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
			d.note(p+".fields", "guessed: columns named like a payload field that hold its value")
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
	for _, c := range slices.Sorted(mapKeys(cols)) {
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
func (d *Draft) link(p string, e *effect, fks []fk, byTable map[string][]row, idOf func(string) string, attributed, skip map[string]bool) {
	for _, f := range fks {
		if f.table != e.Table || byTable[f.target] == nil {
			continue
		}
		skip[f.column] = true
		// references: and join: compare with the other effect's id
		// column: a key naming another column of it (payments.id while
		// the answers carry psp_reference) would never match
		if id := idOf(f.target); f.to != id {
			d.note(p, "the foreign key %s.%s names %s.%s, not the column the effect's id is (%s): left out, since references: and join: compare with that", e.Table, f.column, f.target, f.to, id)
			continue
		}
		ref := &ref{Column: f.column, Table: f.target}
		switch {
		case e.Tenant != "" && e.Key != "" && attributed[f.target] && e.References == nil:
			e.References = ref
			d.note(p+".references", "the foreign key %s.%s", e.Table, f.column)
		case (e.Tenant == "" || e.Key == "") && attributed[f.target] && e.Join == nil:
			e.Join = ref
			d.note(p+".join", "guessed: no key column here; rows belong to the action of the %s row their foreign key %s names", f.target, f.column)
		}
	}
}

// fieldsOf maps each column not in skip that holds a payload field's
// value, and is named like it, to that field's pointer.
func fieldsOf(cols map[string]any, skip map[string]bool, leaves map[string]any) map[string]string {
	fields := map[string]string{}
	for _, c := range slices.Sorted(mapKeys(cols)) {
		if skip[c] {
			continue
		}
		if ptr := fieldOf(c, cols[c], leaves); ptr != "" {
			fields[c] = ptr
		}
	}
	return fields
}

// id finds the main row's ID in the answer and returns the column that
// holds it ("" when none can be named): a member of the body whose value
// is the primary key (the pointer the document gave first), else another
// column of the row (an order number, a PSP reference), else the primary
// key behind a prefix (ch_4, O-00000042 for 4 and 42), or the Location
// header's last segment. A prefixed ID is the answer's, not a column's:
// the effect then names no id, since effects[].id compares as text.
func (d *Draft) id(table string, cols map[string]any, pk, tenant, key string, a answer) string {
	want := text(cols[pk])
	if d.ID != "" && d.ID != "location" && want != "" {
		if v, ok := payloads.Pointer(a.Body, d.ID); ok && v == want {
			d.Notes["target.id"] = fmt.Sprintf("%s; the create call's answer has %s's id there", d.Notes["target.id"], table)
			return pk
		}
	}
	leaves := answerLeaves(a.Body)
	if want != "" {
		if found := pointersTo(leaves, func(v string) bool { return v == want }); len(found) > 0 {
			d.setID(found[0], "guessed: the create call's answer has %s's id (%s) there", table, want)
			return pk
		}
	}
	sent := map[string]bool{} // a value echoed from the payload (1250, order-7) is no ID
	for _, v := range payloadLeaves("", d.Payload) {
		sent[text(v)] = true
	}
	for _, c := range slices.Sorted(mapKeys(cols)) {
		v := text(cols[c])
		if c == pk || v == "" || v == tenant || v == key || sent[v] || len(v) < 3 {
			continue
		}
		if found := pointersTo(leaves, func(s string) bool { return s == v }); len(found) > 0 {
			d.setID(found[0], "guessed: the create call's answer has %s.%s (%s) there", table, c, v)
			return c
		}
	}
	if want != "" {
		prefixed := func(s string) bool {
			p, ok := strings.CutSuffix(s, want)
			return ok && !sent[s] && prefixedID.MatchString(p)
		}
		if found := pointersTo(leaves, prefixed); len(found) > 0 {
			v, _ := payloads.Pointer(a.Body, found[0])
			d.setID(found[0], "guessed: the create call's answer has %s's id (%s) there behind a prefix (%s); effects[].id compares as text, so it names none: a query: effect can give it ('prefix' || %s AS id, docs/contract.md)", table, want, v, pk)
			return ""
		}
	}
	if loc := a.Header.Get("Location"); want != "" && loc != "" && strings.HasSuffix(strings.TrimRight(loc, "/"), "/"+want) {
		d.ID = "location"
		d.note("target.id", "guessed: the Location header ends in %s's id", table)
		return pk
	}
	if want != "" {
		d.note("target.id", "the create call's answer does not carry %s's id (%s): %.200s", table, want, a.Body)
	}
	return ""
}

// setID sets target.id to ptr, its note replacing any earlier one.
func (d *Draft) setID(ptr, format string, args ...any) {
	d.ID = ptr
	if d.Notes == nil {
		d.Notes = map[string]string{}
	}
	d.Notes["target.id"] = fmt.Sprintf(format, args...)
}

// answerLeaves maps the pointer of each string and number of a JSON body
// to it (nil for a body that is no JSON), numbers kept as written.
func answerLeaves(body []byte) map[string]any {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	return payloadLeaves("", v)
}

// pointersTo lists the pointers of the leaves whose text meets match,
// those named like an ID first, then the shortest.
func pointersTo(leaves map[string]any, match func(string) bool) []string {
	var found []string
	for ptr, v := range leaves {
		if match(text(v)) {
			found = append(found, ptr)
		}
	}
	sort.Slice(found, func(i, j int) bool {
		ii, ij := strings.HasSuffix(strings.ToLower(found[i]), "id"), strings.HasSuffix(strings.ToLower(found[j]), "id")
		if ii != ij {
			return ii
		}
		return len(found[i]) < len(found[j]) || len(found[i]) == len(found[j]) && found[i] < found[j]
	})
	return found
}

// prefixedID is what may stand before a numeric ID in an API's own ID:
// letters and a separator, then zeros that pad it (ch_, O-000000, pay-).
var prefixedID = regexp.MustCompile(`^[A-Za-z]+[_\-:.]?0*$`)

// payloadLeaves maps the JSON pointer of each string and number to it;
// identity placeholders are left out.
func payloadLeaves(ptr string, v any) map[string]any {
	out := map[string]any{}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			for p, l := range payloadLeaves(ptr+"/"+escape(k), e) {
				out[p] = l
			}
		}
	case []any:
		for i, e := range x {
			for p, l := range payloadLeaves(ptr+"/"+strconv.Itoa(i), e) {
				out[p] = l
			}
		}
	case string:
		if !strings.Contains(x, "{{") {
			out[ptr] = x
		}
	case nil, bool:
	default:
		out[ptr] = x
	}
	return out
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

// text is a JSON value as text, numbers canonical (1250.00 is 1250).
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	}
	return fmt.Sprint(v)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func either[T any](cond bool, yes, no T) T {
	if cond {
		return yes
	}
	return no
}
