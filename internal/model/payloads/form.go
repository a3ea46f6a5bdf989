package payloads

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"

	"github.com/idemstress/idemstress/internal/model"
)

// SendForm is Send for a service that reads its body as
// application/x-www-form-urlencoded (Stripe): nested members named with
// brackets (metadata[order]=7, items[0]=a), numbers as written, booleans as
// true and false, null as an empty value. A form has no JSON re-encodings:
// odd encodings send the fields in reverse order, even ones sorted.
func SendForm(c model.Contract, id Identity, variant, encoding int) []byte {
	var pairs []string
	formPairs(&pairs, "", varied(c, filler{id: id}, variant))
	if encoding%2 == 1 {
		slices.Reverse(pairs)
	}
	var b []byte
	for i, p := range pairs {
		if i > 0 {
			b = append(b, '&')
		}
		b = append(b, p...)
	}
	return b
}

// RenderForm is the payload the reference model judges for a form body
// in encoding e: the JSON encoding with the same order of fields, so that
// under equivalence: bytes a reordered form is another payload, as it is
// under canonical-json the same.
func RenderForm(c model.Contract, tag string, variant, encoding int) []byte {
	return RenderFormAs(c, Identity{Tag: tag}, variant, encoding)
}

// RenderFormAs is RenderForm for a call that may send another action's
// unique values (id.Unique).
func RenderFormAs(c model.Contract, id Identity, variant, encoding int) []byte {
	return RenderAs(c, id, variant, 2*(encoding%2))
}

func formPairs(pairs *[]string, name string, v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			formPairs(pairs, bracket(name, k), x[k])
		}
	case []any:
		for i, e := range x {
			formPairs(pairs, bracket(name, strconv.Itoa(i)), e)
		}
	case string:
		*pairs = append(*pairs, url.QueryEscape(name)+"="+url.QueryEscape(x))
	case nil:
		*pairs = append(*pairs, url.QueryEscape(name)+"=")
	default:
		raw, err := json.Marshal(x)
		if err != nil {
			panic("model: payload value cannot be encoded: " + err.Error())
		}
		*pairs = append(*pairs, url.QueryEscape(name)+"="+url.QueryEscape(string(raw)))
	}
}

func bracket(name, k string) string {
	if name == "" {
		return k
	}
	return name + "[" + k + "]"
}
