package payloads_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// Under tag_format the tag stands in a field of that alphabet, and so does
// a unique value made from it: a unique field without {{tag}} gets the tag
// after a separator the alphabet holds, or the API refuses every value.
func TestUniqueValuesInTheTagFormat(t *testing.T) {
	for _, format := range []model.IDFormat{model.IDWord, model.IDDNSLabel} {
		c := model.DefaultContract()
		c.Payload = map[string]any{"name": "vm", "label": "web{{tag}}"}
		c.Unique, c.TagFormat = []string{"/name", "/label"}, format
		ns := model.Namespace("i4kx9a1c-")
		for _, call := range []model.Call{{Tenant: "A", Key: "k1"}, {Tenant: "B", Key: "k2"}} {
			body := payloads.Send(c, payloads.Identity{Tag: identifiers.Tag(ns, c, call)}, 0, 0)
			for _, ptr := range c.Unique {
				if v, _ := payloads.Pointer(body, ptr); !format.Accepts(v) {
					t.Errorf("tag_format %s: %s is %q, outside the format", format, ptr, v)
				}
			}
		}
	}
}
