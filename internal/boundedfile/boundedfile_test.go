package boundedfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte(strings.Repeat("x", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		path  string
		limit int64
		want  int   // bytes read
		err   error // or this error
	}{
		{"fits", small, 1000, 1000, nil},
		{"one byte over", small, 999, 0, errTooLarge},
		{"endless", "/dev/zero", 1 << 20, 0, errTooLarge},
		{"empty", "/dev/null", 10, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Read(context.Background(), tc.path, tc.limit, "a test file")
			if !errors.Is(err, tc.err) || len(b) != tc.want {
				t.Fatalf("Read(%s, %d) = %d bytes, %v; want %d bytes, %v", tc.path, tc.limit, len(b), err, tc.want, tc.err)
			}
			if err != nil && !strings.Contains(err.Error(), "a test file is smaller") {
				t.Errorf("error %q does not say what the file should have been", err)
			}
		})
	}
}

func TestReadStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, "/dev/zero", 1<<30, "a test file"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read of /dev/zero after cancel: %v, want context.Canceled", err)
	}
}

// A FIFO nobody writes is refused at once, not waited on; one whose writer
// never writes nor closes is waited on only until the context ends.
func TestReadFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(context.Background(), fifo, 1<<20, "a test file")
	if err == nil || !strings.Contains(err.Error(), fifo+" is a FIFO with no writer") {
		t.Errorf("a FIFO with no writer: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // lets the writer open
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Read(ctx, fifo, 1<<20, "a test file"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a FIFO whose writer is silent: %v, want the context's end", err)
	}
}
