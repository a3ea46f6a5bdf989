package identifiers_test

import (
	"fmt"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
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

func TestTagRoundTrip(t *testing.T) {
	ns := model.Namespace("i4kx9azzzz-")
	tenant := model.DefaultContract()
	global := model.DefaultContract()
	global.KeyScope = model.KeyScopeGlobal
	trim := model.DefaultContract()
	trim.KeyCompare = model.KeyCompareTrim
	for _, tc := range []struct {
		call        model.Call
		c           model.Contract
		tag         string
		tenant, key string
	}{
		{model.Call{Tenant: "A", Key: "k1"}, tenant, "i4kx9azzzz-Ak1.", "A", "k1"},
		// The variant is not part of the action.
		{model.Call{Tenant: "B", Key: "k4", Variant: 2}, tenant, "i4kx9azzzz-Bk4.", "B", "k4"},
		{model.Call{Tenant: "B", Key: "k4", Variant: 2}, global, "i4kx9azzzz-k4.", "", "k4"},
		{model.Call{Tenant: "C", NoKey: true}, tenant, "i4kx9azzzz-C.", "C", ""},
		{model.Call{Tenant: "A", Key: "k2l"}, tenant, "i4kx9azzzz-Ak2l.", "A", "k2l"},
		// Under trim, a key with trailing space is the plain key's action.
		{model.Call{Tenant: "A", Key: "k2s"}, trim, "i4kx9azzzz-Ak2.", "A", "k2"},
		{model.Call{Tenant: "A", Key: "k2s"}, tenant, "i4kx9azzzz-Ak2s.", "A", "k2s"},
	} {
		tag := identifiers.Tag(ns, tc.c, tc.call)
		if tag != tc.tag {
			t.Errorf("Tag(%v) = %q, want %q", tc.call, tag, tc.tag)
		}
		if len(tag) > 16 {
			t.Errorf("Tag(%v) = %q: %d characters, over 16", tc.call, tag, len(tag))
		}
		// The tag is found inside a longer value, as in a ticket subject.
		tenant, key, ok := identifiers.ParseNamespaceTag(ns, "Printer offline ["+tag+"] #2")
		if !ok || tenant != tc.tenant || key != tc.key {
			t.Errorf("ParseTag(%q) = %q, %q, %v", tag, tenant, key, ok)
		}
	}
	for _, s := range []string{"", "Printer offline", "i4kx9azzzy-Ak1.", "i4kx9azzzz-", "i4kx9azzzz-Ak1"} {
		if _, _, ok := identifiers.ParseNamespaceTag(ns, s); ok {
			t.Errorf("ParseTag(%q) found a tag", s)
		}
	}
}

func TestRenderTagged(t *testing.T) {
	base := map[string]any{"subject": "Printer offline [{{tag}}]", "n": 1}
	got := string(payloads.RenderTagged(base, "ns-A.k1.", 1, 0))
	if want := `{"n":2,"subject":"Printer offline [ns-A.k1.]"}`; got != want {
		t.Errorf("RenderTagged = %s, want %s", got, want)
	}
	if got := string(payloads.RenderPayload(base, 0, 0)); got != `{"n":1,"subject":"Printer offline []"}` {
		t.Errorf("RenderPayload without a tag = %s", got)
	}
}
