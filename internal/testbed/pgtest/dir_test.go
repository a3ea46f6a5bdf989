package pgtest

import (
	"os"
	"path/filepath"
	"testing"
)

// What the tests build into BinaryDir goes with it when Main's tests end
// (Main calls removeBinaryDir after m.Run; this binary's other tests do
// not use the directory).
func TestBinaryDirIsRemoved(t *testing.T) {
	dir, err := BinaryDir()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := BinaryDir(); again != dir {
		t.Errorf("BinaryDir: %q, then %q; want one directory a binary", dir, again)
	}
	built := filepath.Join(dir, "sample")
	if err := os.WriteFile(built, []byte("a build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := removeBinaryDir(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after the tests, %s: %v; want it removed", dir, err)
	}
}
