package pgproxy_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/pgproxy"
)

func TestFingerprint(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"INSERT INTO t1 VALUES ($1, $2)", "insert into t1 values ($1, $2)"},
		{"insert  into t1\n values ( 'it''s' , 42)", "insert into t1 values (?, ?)"},
		{"SELECT 3.14, x2 FROM t WHERE a = 'b'", "select ?, x2 from t where a = ?"},
		{"  COMMIT ", "commit"},
	} {
		if got := pgproxy.Fingerprint(c.sql); got != c.want {
			t.Errorf("Fingerprint(%q) = %q, want %q", c.sql, got, c.want)
		}
	}
}
