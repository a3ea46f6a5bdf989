package payloads_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model/payloads"
)

// Stored fields are compared with the payload by JSON value, not as text.
func TestStoredEqual(t *testing.T) {
	doc := []byte(`{"amount":1250,"rate":2.0,"note":"coffee","ok":true,"none":null,"tags":["a",{"b":1}],"s":"1250"}`)
	for _, tc := range []struct {
		ptr, stored string
		null, want  bool
	}{
		{"/amount", "1250", false, true},
		{"/amount", "1250.00", false, true}, // numeric(12,2)
		{"/amount", "1.25e3", false, true},
		{"/amount", "1251", false, false},
		{"/amount", "1250.01", false, false},
		{"/amount", "", true, false},
		{"/amount", "0x4e2", false, false}, // not JSON
		{"/rate", "2", false, true},        // a Node service stores 2 for 2.0
		{"/rate", "2.5", false, false},
		{"/note", "coffee", false, true},
		{"/note", `"coffee"`, false, true}, // a JSON column
		{"/note", "Coffee", false, false},
		{"/note", "", true, false},
		{"/s", "1250", false, true},
		{"/s", "1250.0", false, false}, // a string is text, not a number
		{"/ok", "true", false, true},
		{"/ok", "false", false, false},
		{"/none", "", true, true},
		{"/none", "null", false, true},
		{"/none", "", false, false},
		{"/tags", `["a", {"b": 1.0}]`, false, true}, // jsonb text
		{"/tags", `["a", {"b": 2}]`, false, false},
		{"/missing", "", true, true},
		{"/missing", "x", false, false},
	} {
		if got := payloads.StoredEqual(doc, tc.ptr, tc.stored, tc.null); got != tc.want {
			t.Errorf("%s stored %q (null %v): equal %v, want %v", tc.ptr, tc.stored, tc.null, got, tc.want)
		}
	}
}
