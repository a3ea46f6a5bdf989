//go:build !unix

package pgtemp

func markOwner(string) error { return nil }

// removeStale does nothing where Start does not run.
func removeStale(string) []string { return nil }
