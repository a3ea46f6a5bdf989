package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// No password reaches stdout or stderr, with or without --json, whatever
// path prints a database URL or a contract line: a service command that
// cannot start (its argv holds the URL), one that starts and dies printing
// it, a misspelt or mistyped database_url (quoted from the file), a database
// that cannot be reached, a URL that does not parse.
func TestNoPasswordInOutput(t *testing.T) {
	const secret = "SECRETPW"
	// The test cluster trusts loopback, so a URL with a password connects.
	withPassword := strings.Replace(pgtest.NewDatabase(t, cluster), "postgres@", "postgres:"+secret+"@", 1)
	if !strings.Contains(withPassword, secret) {
		t.Fatalf("could not put a password into %s", withPassword)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "postgres://u:" + secret + "@" + ln.Addr().String() + "/db?connect_timeout=5"
	ln.Close()
	dir := t.TempDir()
	file := func(name, yaml string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := string(ticketsvc.Contract)
	noBinary := file("nobinary.yaml", base+"\nprocess:\n  command: [./no-such-binary, -database-url, \"{database_url}\"]\n")
	dies := file("dies.yaml", base+"\nprocess:\n  command: [sh, -c, 'echo connecting to $DATABASE_URL; exit 1']\n")
	typo := file("typo.yaml", base+"\ndatabse_url: postgres://u:"+secret+"@127.0.0.1/db\n")
	wrongType := file("type.yaml", base+"\ndatabase_url: [postgres://u:"+secret+"@127.0.0.1/db]\n")
	plain := file("plain.yaml", base)

	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"service command not found", []string{"run", "--config", noBinary, "--database-url", withPassword}, exitUsage},
		{"service prints its URL and dies", []string{"run", "--config", dies, "--database-url", withPassword}, exitInconclusive},
		{"misspelt database_url", []string{"run", "--config", typo}, exitUsage},
		{"mistyped database_url", []string{"run", "--config", wrongType}, exitUsage},
		{"doctor, misspelt database_url", []string{"doctor", "--config", typo}, exitUsage},
		{"doctor, mistyped database_url", []string{"doctor", "--config", wrongType}, exitUsage},
		{"database unreachable", []string{"run", "--config", plain, "--database-url", closed}, exitInconclusive},
		{"doctor, database unreachable", []string{"doctor", "--config", plain, "--database-url", closed}, exitInconclusive},
		{"URL that does not parse", []string{"run", "--config", plain, "--database-url", "postgres://u:" + secret + "@h:port:x/db"}, exitUsage},
	} {
		for _, asJSON := range []bool{false, true} {
			args := tc.args
			if asJSON && args[0] == "run" {
				args = append(append([]string{}, args...), "--json")
			} else if asJSON {
				continue
			}
			t.Run(tc.name+map[bool]string{true: " --json"}[asJSON], func(t *testing.T) {
				code, stdout, stderr := invoke(t, args...)
				if strings.Contains(stdout+stderr, secret) {
					t.Errorf("the password reached the output:\n%s%s", stdout, stderr)
				}
				if code != tc.code {
					t.Errorf("exit %d, want %d\n%s%s", code, tc.code, stdout, stderr)
				}
				if stdout+stderr == "" {
					t.Error("nothing said at all")
				}
			})
		}
	}
}
