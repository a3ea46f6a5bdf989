package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemstress/idemstress/internal/atomicfile"
)

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err }); err != nil {
		t.Fatal(err)
	}
}

// A reader that opened the file before a rewrite reads the old contents
// whole, not a truncated or mixed file; no temporary file is left behind.
func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "case.json")
	write(t, path, "old contents")
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	write(t, path, "new")
	if b, _ := io.ReadAll(r); string(b) != "old contents" {
		t.Errorf("an open reader read %q after the rewrite", b)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("file holds %q", b)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", info.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left in the directory: %v", entries)
	}
}

// A write that fails leaves the file as it was and no temporary file.
func TestWriteFailureKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "case.json")
	write(t, path, "old")
	err := atomicfile.Write(path, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("boom") })
	if err == nil {
		t.Fatal("no error")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left in the directory: %v", entries)
	}
}
