package pgproxy

import "testing"

func TestWrites(t *testing.T) {
	for sql, want := range map[string]bool{
		"INSERT INTO t VALUES ($1)":                          true,
		"  insert into t values ($1) on conflict do nothing": true,
		"UPDATE keys SET done = true WHERE k = $1":           true,
		"DELETE FROM t": true,
		"MERGE INTO t USING s ON true WHEN MATCHED THEN DO NOTHING":   true,
		"WITH k AS (INSERT INTO keys VALUES ($1) RETURNING 1) SELECT": true,
		"SELECT * FROM keys WHERE k = $1 FOR UPDATE":                  true,
		"select * from keys where k = $1 for no key update":           true,
		"COPY t FROM STDIN":                    true,
		"/* x */ INSERT INTO t VALUES (1)":     true,
		"SELECT count(*) FROM t WHERE k = $1":  false,
		"SELECT 'for update' FROM t":           false,
		"-- insert\nSELECT 1":                  false,
		"COPY t TO STDOUT":                     false,
		"BEGIN":                                false,
		"COMMIT":                               false,
		"WITH x AS (SELECT 1) SELECT * FROM x": false,
		"":                                     false,
	} {
		if got := Writes(sql); got != want {
			t.Errorf("Writes(%q) = %v, want %v", sql, got, want)
		}
	}
}
