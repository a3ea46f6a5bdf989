package effect

import "regexp"

// adminCall finds a call to a function that acts outside the reading
// transaction: one that ends or signals other sessions, reads the server's
// files, reaches another database, takes a lock the service may wait on, or
// changes a setting such as statement_timeout. READ ONLY does not stop
// these (pg_terminate_backend runs in a read-only transaction, and any role
// may end its own role's sessions: the service's, when idemstress reads
// as the service's role).
//
// This is a check by name, not a sandbox: a function of the service's own
// that wraps one of them goes through. The bound that holds is the role
// database_url names (see "Effects" in docs/contract.md).
var adminCall = regexp.MustCompile(`(?i)(?:^|[^a-z0-9_$])"?(pg_terminate_backend|pg_cancel_backend|pg_signal_backend|pg_reload_conf|pg_rotate_logfile|pg_promote|pg_switch_wal|pg_create_restore_point|pg_log_backend_memory_contexts|pg_read_file|pg_read_binary_file|pg_ls_[a-z_]*|pg_stat_file|pg_file_[a-z_]*|lo_import|lo_export|dblink[a-z_]*|set_config|pg_advisory_[a-z_]*|pg_try_advisory_[a-z_]*)"?\s*\(`)

// AdminCall returns the first such function a query calls, or "".
func AdminCall(query string) string {
	if m := adminCall.FindStringSubmatch(query); m != nil {
		return m[1]
	}
	return ""
}
