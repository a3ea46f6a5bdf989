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

func TestWritesTo(t *testing.T) {
	for _, c := range []struct {
		sql, table string
		want       bool
	}{
		{"INSERT INTO tickets (id) VALUES ($1)", "tickets", true},
		{"insert into public.tickets values ($1)", "tickets", true},
		{"INSERT INTO public.tickets VALUES ($1)", "public.tickets", true},
		{"INSERT INTO billing.tickets VALUES ($1)", "public.tickets", false},
		{`INSERT INTO "Tickets" VALUES ($1)`, "Tickets", true},
		{`INSERT INTO Tickets VALUES ($1)`, "Tickets", false},
		{"UPDATE notification_outbox SET sent = true", "notification_outbox", true},
		{"DELETE FROM tickets WHERE id = $1", "tickets", true},
		{"WITH t AS (INSERT INTO tickets VALUES ($1) RETURNING id) INSERT INTO outbox SELECT id FROM t", "outbox", true},
		{"INSERT INTO idempotency_keys (ticket_id) VALUES ($1)", "tickets", false},
		{"SELECT * FROM tickets FOR UPDATE", "tickets", false},
		{"INSERT INTO keys VALUES ('insert into tickets')", "tickets", false},
	} {
		if got := WritesTo(c.sql, c.table); got != c.want {
			t.Errorf("WritesTo(%q, %q) = %v, want %v", c.sql, c.table, got, c.want)
		}
	}
}
