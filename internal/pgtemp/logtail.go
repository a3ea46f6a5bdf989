package pgtemp

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// tailLines is how many server log lines an error message carries.
const tailLines = 50

// logTail forwards server output line by line to an optional writer and
// keeps the last tailLines lines, so that a failed startup can say why the
// server gave up. An unterminated last line is kept but not forwarded.
type logTail struct {
	mu      sync.Mutex
	out     io.Writer // nil: discard
	lines   []string  // ring of at most tailLines complete lines
	next    int       // ring index of the oldest line once the ring is full
	partial []byte    // an unterminated last line
}

func newLogTail(out io.Writer) *logTail {
	return &logTail{out: out}
}

// Write never fails: a broken Log writer must not stall or kill the server,
// whose output pipe would otherwise fill up.
func (t *logTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rest := p
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			t.partial = append(t.partial, rest...)
			return len(p), nil
		}
		t.push(string(append(t.partial, rest[:i]...)))
		t.partial = t.partial[:0]
		rest = rest[i+1:]
	}
}

// push keeps a complete line and forwards it, with its newline, in one Write,
// so that a Log writer that prefixes or timestamps each Write sees lines.
func (t *logTail) push(line string) {
	if t.out != nil {
		if _, err := io.WriteString(t.out, line+"\n"); err != nil {
			t.out = nil
		}
	}
	if len(t.lines) < tailLines {
		t.lines = append(t.lines, line)
		return
	}
	t.lines[t.next] = line
	t.next = (t.next + 1) % tailLines
}

// Reset forgets the kept lines (not the forwarding), so that a new server
// attempt's errors show only that attempt's log.
func (t *logTail) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines, t.next, t.partial = nil, 0, nil
}

// String returns the kept lines, oldest first, each indented for quoting in
// an error message, or "(no output)".
func (t *logTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ordered := append(append([]string{}, t.lines[t.next:]...), t.lines[:t.next]...)
	if len(t.partial) > 0 {
		ordered = append(ordered, string(t.partial))
	}
	if len(ordered) == 0 {
		return "\t(no output)"
	}
	return "\t" + strings.Join(ordered, "\n\t")
}

// Contains reports whether a kept line contains s.
func (t *logTail) Contains(s string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, line := range t.lines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return bytes.Contains(t.partial, []byte(s))
}
