package logtail_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/idemstress/idemstress/internal/logtail"
)

// writes records each Write it is given, as a log that stamps every Write
// would see them.
type writes struct {
	got []string
	err error // returned by every Write once set
}

func (w *writes) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.got = append(w.got, string(p))
	return len(p), nil
}

func TestTail(t *testing.T) {
	const lines = 50
	for _, tc := range []struct {
		name     string
		writes   []string
		want     string   // Since(0)
		wantSent []string // each Write to the forward writer
	}{
		{name: "empty", want: ""},
		{name: "lines split across writes", writes: []string{"a\nb", "c\n", "d"}, want: "a\nbc\nd", wantSent: []string{"a\n", "bc\n"}},
		{name: "keeps the last lines", writes: []string{strings.Repeat("x\n", lines) + "y\nz\n"},
			want:     strings.Repeat("x\n", lines-2) + "y\nz",
			wantSent: append(repeat("x\n", lines), "y\n", "z\n")},
		{name: "trailing newlines trimmed", writes: []string{"a\n\n\n"}, want: "a", wantSent: []string{"a\n", "\n", "\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent writes
			tail := logtail.New(lines, &sent)
			for _, w := range tc.writes {
				if n, err := tail.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := tail.Since(0); got != tc.want {
				t.Errorf("Since(0) = %q, want %q", got, tc.want)
			}
			if strings.Join(sent.got, "|") != strings.Join(tc.wantSent, "|") {
				t.Errorf("forwarded %q, want %q", sent.got, tc.wantSent)
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestTailSince shows one attempt's output without the one before it, the
// way a retried start quotes only what the retry printed.
func TestTailSince(t *testing.T) {
	tail := logtail.New(3, nil)
	tail.Write([]byte("first try\nAddress already in use\n"))
	mark := tail.Mark()
	if got := tail.Since(mark); got != "" {
		t.Errorf("Since(Mark()) before any new output = %q, want empty", got)
	}
	tail.Write([]byte("second try\nready\n"))
	if got := tail.Since(mark); got != "second try\nready" {
		t.Errorf("Since(mark) = %q, want only the second try", got)
	}
	if got := tail.Since(0); got != "Address already in use\nsecond try\nready" {
		t.Errorf("Since(0) = %q, want the last 3 lines of both", got)
	}
	if got := tail.Since(mark + 1000); got != "" {
		t.Errorf("Since(a mark past the end) = %q, want empty", got)
	}
}

// TestTailBounded writes far more than a Tail keeps: it must still answer
// with the last lines, and a mark from before the kept bytes must show what
// is left of them.
func TestTailBounded(t *testing.T) {
	tail := logtail.New(2, nil)
	line := strings.Repeat("y", 1000) + "\n"
	for range 1000 { // ~1 MB
		tail.Write([]byte(line))
	}
	tail.Write([]byte("last\n"))
	if got, want := tail.Since(0), line[:len(line)-1]+"\nlast"; got != want {
		t.Errorf("Since(0) after 1 MB: %d bytes ending %q, want the last 2 lines", len(got), got[max(len(got)-10, 0):])
	}
	if got := tail.Mark(); got != int64(1000*len(line)+len("last\n")) {
		t.Errorf("Mark() = %d, want every byte counted", got)
	}
}

// TestTailForwardLongLine: a line with no end in sight is forwarded in
// pieces rather than held back without bound.
func TestTailForwardLongLine(t *testing.T) {
	var sent writes
	tail := logtail.New(5, &sent)
	long := strings.Repeat("z", 200<<10)
	tail.Write([]byte(long))
	tail.Write([]byte("\nnext\n"))
	if got := strings.Join(sent.got, ""); got != long+"\nnext\n" {
		t.Errorf("forwarded %d bytes in %d writes, want all %d of them and the next line", len(got), len(sent.got), len(long)+6)
	}
	if n := len(sent.got); n < 2 || sent.got[n-1] != "next\n" {
		t.Errorf("forwarded %d writes, want the long line in pieces and then %q alone", n, "next\n")
	}
}

// TestTailForwardFails: a broken log must not break the child's output.
func TestTailForwardFails(t *testing.T) {
	sent := writes{err: errors.New("disk full")}
	tail := logtail.New(5, &sent)
	for _, w := range []string{"a\n", "b\n"} {
		if n, err := tail.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q) with a failing forward writer = %d, %v; want %d, nil", w, n, err, len(w))
		}
	}
	if got := tail.Since(0); got != "a\nb" {
		t.Errorf("Since(0) = %q, want the lines kept all the same", got)
	}
}

// TestTailConcurrent is for the race detector: a command's Stdout and
// Stderr copiers write while an error message reads.
func TestTailConcurrent(t *testing.T) {
	var log strings.Builder
	var mu sync.Mutex
	tail := logtail.New(10, writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return log.Write(p)
	}))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				tail.Write([]byte("line\n"))
				tail.Since(tail.Mark() - 20)
			}
		})
	}
	wg.Wait()
	if got := strings.Count(log.String(), "line\n"); got != 800 {
		t.Errorf("forwarded %d lines, want 800", got)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
