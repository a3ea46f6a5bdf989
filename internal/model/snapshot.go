package model

// Row is one effect row, every value read as text.
type Row struct {
	Tenant string
	Key    string
	// KeyNull is true when the key column is NULL (a keyless call's row).
	KeyNull bool
	ID      string
	// Ref is the value of the references column; RefNull when it is NULL.
	Ref     string
	RefNull bool
	// Tag is the value of the tag column, Join of the join column.
	Tag  string
	Join string
	// Fields are the effect's field columns as text, by column; a NULL
	// column is left out.
	Fields map[string]string
}

// Snapshot is the rows of one namespace, by effect table.
type Snapshot map[string][]Row

// Baseline fingerprints the effect rows OUTSIDE a run's namespace prefix,
// one string per table. Taken before a run and again after, it proves the
// run wrote nothing but its own rows (IDEM-009): a table whose string
// differs changed outside the run. Query effects are left out: a query only
// ever shows the namespace's rows.
type Baseline map[string]string
