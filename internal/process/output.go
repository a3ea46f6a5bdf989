package process

import (
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/idemstress/idemstress/internal/logtail"
)

// A replica's output: its tail (package logtail), the lines idemstress adds
// to it, and the writers that take every replica's lines to Spec.Log.

// note adds a line of idemstress's own to the output.
func note(t *logtail.Tail, format string, args ...any) {
	fmt.Fprintf(t, "--- idemstress: "+format+" ---\n", args...)
}

// tailSince is t.Since(mark) set off for an error message.
func tailSince(t *logtail.Tail, mark int64) string {
	if s := t.Since(mark); s != "" {
		return "; last output:\n" + s
	}
	return "; no output"
}

// lockedWriter is one writer that several tails forward to at once: each
// Write, a whole line, goes in one piece.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// prefixed writes each Write (a line) to w after prefix; nil when w is.
func prefixed(w io.Writer, prefix string) io.Writer {
	if w == nil {
		return nil
	}
	return prefixWriter{w: w, prefix: []byte(prefix)}
}

type prefixWriter struct {
	w      io.Writer
	prefix []byte
}

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := p.w.Write(append(slices.Clip(p.prefix), b...)); err != nil {
		return 0, err
	}
	return len(b), nil
}
