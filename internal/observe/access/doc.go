// Package access plans how a namespace's rows are found in each effect
// table, at a cost that follows what the plan wrote and not what the table
// holds: what the catalog says of a table's columns, indexes and sequences
// (Inspect, catalog.go), the SQL conditions that use them (a Finder and
// RowsQuery, finder.go and prefixes.go), and, where they fall short, the
// index that would serve (Advise, indexes.go). It reads the catalog only,
// in a transaction package observe hands it, and never a row: observe runs
// the queries, reads the marks and takes the baseline.
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
//     before the plan's first call (observe's Observer.Begin) or before the
//     run's (Observer.Baseline), and id is a sequence-assigned column with a
//     btree index. See markColumn for when that is safe.
//   - Otherwise the table is scanned, as before, and the observer's Notes
//     say so (ScanNote).
package access
