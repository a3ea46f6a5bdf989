package wireproxy

import (
	"bytes"
	"slices"
	"sync"
)

// Registry is a proxy's live calls, each with the marker byte strings that
// tie its traffic to it. C is the proxy's call (a pointer).
type Registry[C comparable] struct {
	mu   sync.Mutex
	ties []tie[C]
}

type tie[C comparable] struct {
	call    C
	markers [][]byte
}

// Add registers call with markers (copied; empty ones are ignored).
func (r *Registry[C]) Add(call C, markers [][]byte) {
	t := tie[C]{call: call}
	for _, m := range markers {
		if len(m) > 0 {
			t.markers = append(t.markers, bytes.Clone(m))
		}
	}
	r.mu.Lock()
	r.ties = append(r.ties, t)
	r.mu.Unlock()
}

// Remove takes call out of the registry.
func (r *Registry[C]) Remove(call C) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ties = slices.DeleteFunc(r.ties, func(t tie[C]) bool { return t.call == call })
}

// Match is the first call registered, of those live, one of whose markers
// one of fields contains; the zero C (nil) for none. Calls registered
// with the same marker cannot be told apart by it: the first takes every
// match.
func (r *Registry[C]) Match(fields ...[]byte) C {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.ties {
		for _, m := range t.markers {
			for _, f := range fields {
				if bytes.Contains(f, m) {
					return t.call
				}
			}
		}
	}
	var none C
	return none
}
