//go:build !unix

package pgtemp

func markOwner(string) error { return nil }

// RemoveStale does nothing where Start does not run.
func RemoveStale(string) []string { return nil }
