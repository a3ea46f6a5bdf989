package pgproxy_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// TestAuthenticationPassesThrough: SCRAM-SHA-256, MD5 and cleartext
// password authentication run between a pgx client and the server through
// the proxy, which relays their messages as they are; a wrong password is
// the server's 28P01. The throwaway cluster trusts everyone, so the test
// gives three roles of its own a method each in pg_hba.conf and reloads.
func TestAuthenticationPassesThrough(t *testing.T) {
	f := newFixture(t, nil)
	c := pgtest.Cluster(t, cluster)
	admin := connect(t, f.direct)
	ctx := context.Background()
	methods := map[string]string{"scram_user": "scram-sha-256", "md5_user": "md5", "clear_user": "password"}
	for role, method := range methods {
		enc := "scram-sha-256"
		if method == "md5" {
			enc = "md5" // an md5 line with a SCRAM secret would run SCRAM
		}
		mustExec(t, admin, "SET password_encryption = '"+enc+"'")
		mustExec(t, admin, "DROP ROLE IF EXISTS "+role)
		mustExec(t, admin, "CREATE ROLE "+role+" LOGIN PASSWORD 'secret-1'")
	}
	hba := filepath.Join(c.Dir(), "data", "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for role, method := range methods {
		lines.WriteString("host all " + role + " 127.0.0.1/32 " + method + "\n")
	}
	write := func(b []byte) {
		// WriteFile keeps the file's owner (the server's OS user).
		if err := os.WriteFile(hba, b, 0o600); err != nil {
			t.Fatal(err)
		}
		mustExec(t, admin, "SELECT pg_reload_conf()")
	}
	write(append([]byte(lines.String()), old...))
	t.Cleanup(func() { write(old) })

	for role, method := range methods {
		t.Run(method, func(t *testing.T) {
			url := func(password string) string {
				return strings.Replace(f.url, "postgres://postgres@", "postgres://"+role+":"+password+"@", 1)
			}
			// The reload is asynchronous: wait until the wrong password is refused.
			var err error
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				var conn *pgx.Conn
				if conn, err = pgx.Connect(ctx, url("wrong")); err == nil {
					conn.Close(ctx)
					continue
				}
				break
			}
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
				t.Fatalf("wrong password: %v, want the server's 28P01", err)
			}
			conn := connect(t, url("secret-1"))
			var who string
			if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil || who != role {
				t.Errorf("current_user %q, %v; want %s", who, err, role)
			}
			// PostgreSQL 16 names the method that authenticated the session
			// (the 28P01 above already shows a password was asked for).
			var used string
			if conn.PgConn().ParameterStatus("server_version") >= "16" {
				if err := conn.QueryRow(ctx, "SELECT system_user").Scan(&used); err != nil {
					t.Fatal(err)
				}
				if want := method + ":" + role; used != want {
					t.Errorf("system_user %q, want %q", used, want)
				}
			}
		})
	}
}
