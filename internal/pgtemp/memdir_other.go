//go:build !linux

package pgtemp

// tempBase is "" (os.TempDir): only Linux has a tmpfs at a known place.
func tempBase() string { return "" }
