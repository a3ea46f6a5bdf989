package access

import "testing"

// TestSuccessor: the successor of a prefix bounds exactly the strings that
// start with it, in byte order.
func TestSuccessor(t *testing.T) {
	for _, tc := range []struct {
		ns, want string
		ok       bool
	}{
		{"ns1-", "ns1.", true},
		{"n_1%", "n_1&", true},
		{"ns~", "ns\x7f", true},
		{"ns\x7f", "nt", true},
		{"\x7f\x7f", "", false},
		{"", "", false},
		{"ns\u00e9", "", false},
	} {
		got, ok := successor(tc.ns)
		if got != tc.want || ok != tc.ok {
			t.Errorf("successor(%q) = %q, %v; want %q, %v", tc.ns, got, ok, tc.want, tc.ok)
		}
	}
}
