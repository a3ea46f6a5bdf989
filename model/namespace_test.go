package model_test

import (
	"fmt"
	"testing"

	"github.com/idemstress/idemstress/model"
)

func TestNamespaceLogical(t *testing.T) {
	tests := []struct {
		ns      model.Namespace
		logical string
	}{
		{"run1-7-", "A"},
		{"run1-7-", "k1"},
		{"run1-7-", ""},
		{"", "A"},
		{"ünï-", "k/ 2"},
	}
	for _, tt := range tests {
		t.Run(string(tt.ns)+tt.logical, func(t *testing.T) {
			for _, sent := range []string{tt.ns.Tenant(tt.logical), tt.ns.Key(tt.logical)} {
				got, ok := tt.ns.Logical(sent)
				if !ok || got != tt.logical {
					t.Errorf("Logical(%q) = %q, %v; want %q, true", sent, got, ok, tt.logical)
				}
			}
		})
	}
}

func TestNamespaceLogicalOutside(t *testing.T) {
	ns := model.Namespace("run1-7-")
	for _, s := range []string{"run1-8-A", "run1-7", "A", "", "xrun1-7-A"} {
		if got, ok := ns.Logical(s); ok {
			t.Errorf("Logical(%q) = %q, true; want false for a string outside %q", s, got, ns)
		}
	}
}

func ExampleNamespace() {
	ns := model.Namespace("run1-7-")
	sent := ns.Key("k1")
	logical, ok := ns.Logical(sent)
	fmt.Println(sent, logical, ok)
	// Output: run1-7-k1 k1 true
}
