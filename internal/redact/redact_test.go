package redact_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/redact"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://u:SECRETPW@host:5432/db", "postgres://u:xxxxx@host:5432/db"},
		{`dial "postgresql://app:S3cr%40t@10.0.0.1/app?sslmode=disable"`, `dial "postgresql://app:xxxxx@10.0.0.1/app?sslmode=disable"`},
		{`line 7: unknown field "databse_url" in "databse_url: postgres://u:SECRETPW@h/db"`, `line 7: unknown field "databse_url" in "databse_url: postgres://u:xxxxx@h/db"`},
		{"argv [./svc -database-url postgres://u:p@h/db -listen 127.0.0.1:1]", "argv [./svc -database-url postgres://u:xxxxx@h/db -listen 127.0.0.1:1]"},
		{"host=h user=u password=SECRETPW dbname=d", "host=h user=u password=xxxxx dbname=d"},
		{"postgres://h/db?user=u&password=SECRETPW&sslmode=off", "postgres://h/db?user=u&password=xxxxx&sslmode=off"},
		{"password: 'SECRET PW'", "password: xxxxx"},
		{"PGPASSWORD=SECRETPW ./svc", "PGPASSWORD=xxxxx ./svc"},
		{"env: DB_PASSWORD=SECRETPW, REDIS_PASSWORD: SECRETPW", "env: DB_PASSWORD=xxxxx, REDIS_PASSWORD: xxxxx"},
		{`line 9: did not find expected key in "Authorization: Bearer ya29.a0AfH6SM-t0k"`, `line 9: did not find expected key in "Authorization: Bearer xxxxx"`},
		{"headers: {Authorization: Basic dXNlcjpwYXNzd29yZA==}", "headers: {Authorization: Basic xxxxx}"},
		// No password: nothing changes.
		{`give "Bearer <token>" here; basic authentication`, `give "Bearer <token>" here; basic authentication`},
		{"postgres://u@host/db", "postgres://u@host/db"},
		{"http://127.0.0.1:8080/tickets", "http://127.0.0.1:8080/tickets"},
		{"IDEM-001 duplicate effect: 2 row(s) in tickets", "IDEM-001 duplicate effect: 2 row(s) in tickets"},
	} {
		if got := redact.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := redact.Writer{W: &b}
	msg := "idemstress: database unreachable: postgres://u:SECRETPW@h/db\n"
	n, err := fmt.Fprint(w, msg)
	if err != nil || n != len(msg) {
		t.Fatalf("Fprint = %d, %v; want %d, nil", n, err, len(msg))
	}
	if strings.Contains(b.String(), "SECRETPW") || !strings.Contains(b.String(), "u:xxxxx@h") {
		t.Errorf("written: %q", b.String())
	}
}
