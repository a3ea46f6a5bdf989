package effect

import (
	"strings"
	"testing"
)

func TestAdminCall(t *testing.T) {
	for query, want := range map[string]string{
		"SELECT id, tenant, subject FROM tickets WHERE strpos(subject, $1) > 0":                       "",
		"SELECT id, tenant FROM tickets WHERE tenant LIKE $1 || '%' AND my_pg_terminate_backend(1)":   "",
		"SELECT id, tenant FROM t WHERE $1 <> '' AND pg_terminate_backend(pid) FROM pg_stat_activity": "pg_terminate_backend",
		"SELECT id FROM t, LATERAL pg_catalog.PG_CANCEL_BACKEND (42) WHERE $1 = ''":                   "PG_CANCEL_BACKEND",
		`SELECT "pg_read_file"('/etc/passwd') AS id WHERE $1 = ''`:                                    "pg_read_file",
		"SELECT id FROM t WHERE $1 = '' AND pg_advisory_lock(1) IS NULL":                              "pg_advisory_lock",
		"SELECT set_config('statement_timeout', '0', true), id FROM t WHERE $1 = ''":                  "set_config",
		"SELECT * FROM dblink('other', 'DELETE FROM t') AS x(id int) WHERE $1 = ''":                   "dblink",
	} {
		if got := AdminCall(query); got != want {
			t.Errorf("AdminCall(%q) = %q, want %q", query, got, want)
		}
	}
}

// A query: effect that ends other sessions is refused with the contract.
func TestValidateEffectsRefusesAdminCalls(t *testing.T) {
	e := Effect{Table: "q", Tag: "label", Query: "SELECT pg_terminate_backend(pid) AS id, '' AS label FROM pg_stat_activity WHERE $1 <> ''"}
	if err := ValidateEffects([]Effect{e}); err == nil || !strings.Contains(err.Error(), "effects[0].query (q): calls pg_terminate_backend") {
		t.Errorf("err %v", err)
	}
}
