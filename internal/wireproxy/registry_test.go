package wireproxy_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/wireproxy"
)

type call struct{ name string }

func TestRegistryMatch(t *testing.T) {
	var r wireproxy.Registry[*call]
	a, b := &call{"a"}, &call{"b"}
	key := []byte("k1")
	r.Add(a, [][]byte{nil, key})
	r.Add(b, [][]byte{[]byte("k1"), []byte("tag-b")})
	key[0] = 'x' // the registry keeps its own copy
	tests := []struct {
		name   string
		fields [][]byte
		want   *call
	}{
		{"no field", nil, nil},
		{"no marker in any field", [][]byte{[]byte("SELECT 1"), []byte("k2")}, nil},
		{"a marker inside a field", [][]byte{[]byte("INSERT ... 'k1'")}, a},
		{"the first registered of two with one marker", [][]byte{[]byte("k1")}, a},
		{"a later field", [][]byte{[]byte("SELECT 1"), []byte("tag-b")}, b},
		{"a copied marker, not the caller's slice", [][]byte{[]byte("x1")}, nil},
	}
	for _, tt := range tests {
		if got := r.Match(tt.fields...); got != tt.want {
			t.Errorf("%s: Match = %v, want %v", tt.name, got, tt.want)
		}
	}
	r.Remove(a)
	if got := r.Match([]byte("k1")); got != b {
		t.Errorf("after Remove(a): Match(k1) = %v, want b", got)
	}
	r.Remove(b)
	if got := r.Match([]byte("tag-b")); got != nil {
		t.Errorf("after Remove(b): Match(tag-b) = %v, want none", got)
	}
}

// TestRegistryEmptyMarker: an empty marker is in every byte string; it
// must tie nothing.
func TestRegistryEmptyMarker(t *testing.T) {
	var r wireproxy.Registry[*call]
	r.Add(&call{"a"}, [][]byte{{}, nil})
	if got := r.Match([]byte("anything")); got != nil {
		t.Errorf("a call with only empty markers matched %q", got.name)
	}
}
