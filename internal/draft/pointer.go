package draft

import (
	"strconv"
	"strings"
)

// Escape is a JSON pointer's escaping of a member name.
func Escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// PayloadLeaves maps the JSON pointer of each string and number to it;
// identity placeholders are left out.
func PayloadLeaves(ptr string, v any) map[string]any {
	out := map[string]any{}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			for p, l := range PayloadLeaves(ptr+"/"+Escape(k), e) {
				out[p] = l
			}
		}
	case []any:
		for i, e := range x {
			for p, l := range PayloadLeaves(ptr+"/"+strconv.Itoa(i), e) {
				out[p] = l
			}
		}
	case string:
		if !strings.Contains(x, "{{") {
			out[ptr] = x
		}
	case nil, bool:
	default:
		out[ptr] = x
	}
	return out
}
