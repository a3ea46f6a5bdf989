package atomicfile_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/atomicfile"
)

// A symlink is written through to its target and stays a symlink: a rename
// over it would replace /dev/stdout's link with a regular file.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "report.xml"), filepath.Join(dir, "link.xml")
	write(t, target, "old contents, longer than the new")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	write(t, link, "new")
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", info.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q", b)
	}
}

// A FIFO with a reader is written through and stays a FIFO (as a pipe
// behind /dev/stdout is); one with no reader is refused at once, naming the
// path, not waited on forever.
func TestWriteThroughFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	err := atomicfile.Write(fifo, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
	if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "no reader") {
		t.Errorf("a FIFO with no reader: %v", err)
	}
	got := make(chan string)
	go func() {
		r, err := os.Open(fifo) // waits for the writer
		if err != nil {
			got <- err.Error()
			return
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			got <- err.Error()
		}
		got <- string(b)
	}()
	link := filepath.Join(dir, "stdout")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err = atomicfile.Write(link, func(w io.Writer) error { _, err := io.WriteString(w, "<testsuites/>"); return err })
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond) // the reader is not open yet
	}
	if err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "<testsuites/>" {
		t.Errorf("the reader read %q", s)
	}
	if info, _ := os.Lstat(fifo); info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO became %v", info.Mode())
	}
}

// A dangling symlink is refused in one line naming it, and left as it was:
// neither replaced by a file nor used to create one where it points.
func TestWriteRefusesDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link, missing := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "missing.xml")
	if err := os.Symlink(missing, link); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func() error{
		"Write": func() error {
			return atomicfile.Write(link, func(w io.Writer) error { return nil })
		},
		"Append": func() error {
			f, err := atomicfile.Append(link)
			if err == nil {
				f.Close()
			}
			return err
		},
	} {
		if err := open(); err == nil || !strings.Contains(err.Error(), link) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
		}
		if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the link was replaced", name)
		}
		if _, err := os.Lstat(missing); err == nil {
			t.Errorf("%s: created the link's target", name)
		}
	}
}

// Append appends to a regular file and creates a missing one.
func TestAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "service.log")
	for _, s := range []string{"a\n", "b\n"} {
		f, err := atomicfile.Append(path)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, s)
		f.Close()
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\n" {
		t.Errorf("file holds %q", b)
	}
}
