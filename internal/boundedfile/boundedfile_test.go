package boundedfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
