package draft

import "strings"

// Escape is a JSON pointer's escaping of a member name.
func Escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
