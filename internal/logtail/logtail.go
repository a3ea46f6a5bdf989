// Package logtail keeps the end of a child process's output, bounded
// however much it writes, to quote in error messages, and may forward it
// line by line to a log. It knows nothing of how the child is started or
// supervised (package process and package pgtemp do that); it is a byte-level
// io.Writer.
package logtail

import (
	"bytes"
	"io"
	"sync"

	"github.com/idemstress/idemstress/internal/redact"
)

// tailKeep is how many bytes of output a Tail keeps at least: enough for
// its lines unless they are very long, and bounded however much is written.
const tailKeep = 64 << 10

// Tail keeps the end of a child's output for error messages and may forward
// it, line by line, to a log. It is an io.Writer safe for concurrent use, so
// one Tail can be both Stdout and Stderr of a command. Since(Mark()) taken
// before a start shows only what that start printed.
type Tail struct {
	lines int // the most lines Since returns

	mu      sync.Mutex
	forward io.Writer // nil: nothing to forward to, or it failed
	buf     []byte    // the last tailKeep to 2*tailKeep bytes written
	written int64     // bytes written in all
	unsent  int       // bytes at the end of buf not forwarded yet: an unterminated line
}

// New returns a Tail whose Since returns at most lines lines (at least
// one). Unless forward is nil, every complete line is also written to it,
// newline included, in one Write of its own; an unterminated last line
// waits for its newline.
func New(lines int, forward io.Writer) *Tail {
	return &Tail{lines: max(lines, 1), forward: forward}
}

// Write never fails: a failing forward writer is dropped rather than
// stalling the child, whose output pipe would otherwise fill up.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	t.written += int64(len(p))
	if t.forward != nil {
		t.unsent += len(p)
		t.send()
	}
	// Trim only at twice the size kept, so that a chatty child costs one
	// copy per tailKeep bytes, not one per write.
	if len(t.buf) > 2*tailKeep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailKeep:]...)
	}
	return len(p), nil
}

// send forwards the complete lines among the unsent bytes, one Write each,
// so that a writer that prefixes or timestamps each Write sees lines.
func (t *Tail) send() {
	rest := t.buf[len(t.buf)-t.unsent:]
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		if _, err := t.forward.Write(rest[:i+1]); err != nil {
			t.forward, t.unsent = nil, 0
			return
		}
		rest = rest[i+1:]
	}
	// A line longer than the tail keeps goes out in pieces: waiting for its
	// end would let it grow without bound.
	if len(rest) > tailKeep {
		if _, err := t.forward.Write(rest); err != nil {
			t.forward = nil
		}
		rest = nil
	}
	t.unsent = len(rest)
}

// Mark is where Since starts from to show only what is written after now.
func (t *Tail) Mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.written
}

// Since is the last lines written after mark, an unterminated one included,
// joined by newlines without a final one; "" when nothing was written.
func (t *Tail) Since(mark int64) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if n := max(t.written-mark, 0); n < int64(len(b)) {
		b = b[len(b)-int(n):]
	}
	b = bytes.TrimRight(b, "\n")
	i := len(b)
	for range t.lines {
		if i = bytes.LastIndexByte(b[:i], '\n'); i < 0 {
			return redact.String(string(b))
		}
	}
	// The service's own lines may print its database URL or PGPASSWORD=.
	return redact.String(string(b[i+1:]))
}
