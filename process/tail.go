package process

import (
	"bytes"
	"fmt"
	"sync"
)

// outputTail keeps the end of a replica's output.
type outputTail struct {
	mu      sync.Mutex
	buf     []byte
	written int64
}

func (o *outputTail) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, b...)
	o.written += int64(len(b))
	// Trim only at twice the size kept, so that a chatty service costs one
	// copy per outputKeep bytes, not one per write.
	if len(o.buf) > 2*outputKeep {
		o.buf = append(o.buf[:0], o.buf[len(o.buf)-outputKeep:]...)
	}
	return len(b), nil
}

func (o *outputTail) total() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.written
}

// note adds a line of idemstress's own to the output.
func (o *outputTail) note(format string, args ...any) {
	fmt.Fprintf(o, "--- idemstress: "+format+" ---\n", args...)
}

// since is the last outputLines lines written after mark bytes.
func (o *outputTail) since(mark int64) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.buf
	if n := o.written - mark; n < int64(len(b)) {
		b = b[len(b)-int(n):]
	}
	b = bytes.TrimRight(b, "\n")
	i := len(b)
	for range outputLines {
		if i = bytes.LastIndexByte(b[:i], '\n'); i < 0 {
			return string(b)
		}
	}
	return string(b[i+1:])
}

// tailSince is since(mark) set off for an error message.
func (o *outputTail) tailSince(mark int64) string {
	if s := o.since(mark); s != "" {
		return "; last output:\n" + s
	}
	return "; no output"
}
