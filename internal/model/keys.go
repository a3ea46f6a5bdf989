package model

import "strings"

// KeyCompare names how the service compares idempotency keys.
type KeyCompare string

const (
	// KeyCompareExact: keys are byte-exact; "k1" and "k1 " are two actions.
	KeyCompareExact KeyCompare = "exact"
	// KeyCompareTrim: surrounding whitespace does not count.
	KeyCompareTrim KeyCompare = "trim"
	// KeyCompareCaseInsensitive: letter case does not count.
	KeyCompareCaseInsensitive KeyCompare = "case-insensitive"
)

// defaultKeyMaxLen is the longest key a service is assumed to take.
const defaultKeyMaxLen = 255

// Key shapes. A logical key is a short name ("k1") with an optional shape
// letter that says how its sent form differs from the plain one: real
// clients send long keys, non-ASCII keys, and retries whose key differs by
// whitespace or case. The letter keeps logical names short (they are in
// every tag) and turns back from a key read out of a table.
const (
	ShapeSpace   = 's' // "k1\u00a0": trailing white space (a no-break space: HTTP strips spaces and tabs around a header value itself)
	ShapeCase    = 'c' // "K1": another letter case
	shapeUnicode = 'u' // "κ1": not ASCII
	shapeLong    = 'l' // "k1-xxx…": as long as the contract allows
)

// nbsp is the white space of ShapeSpace.
const nbsp = "\u00a0"

// Shapes lists the key shapes, in the order a generator may draw them.
var Shapes = []byte{ShapeSpace, ShapeCase, shapeUnicode, shapeLong}

// Shaped is logical key name with the given shape ("k1" + 's').
func Shaped(name string, shape byte) string { return name + string(shape) }

// PlainKey is a logical key without its shape ("k1s" → "k1").
func PlainKey(logical string) string {
	name, _ := splitShape(logical)
	return name
}

// splitShape is a logical key's plain name and shape (0 for none).
func splitShape(logical string) (string, byte) {
	if n := len(logical); n > 2 && strings.IndexByte(string(Shapes), logical[n-1]) >= 0 {
		return logical[:n-1], logical[n-1]
	}
	return logical, 0
}

// SentKey is the idempotency key sent for a logical key in namespace ns,
// in the contract's key format.
func (c Contract) SentKey(ns Namespace, logical string) string {
	f := c.keyRule().format
	return f.sent(ns, c.shapedKey(ns, f, logical))
}

// shapedKey is the text of a logical key after the namespace, as its
// shape says: "k1\u00a0", "K1", "κ1", "k1-xxx…".
func (c Contract) shapedKey(ns Namespace, f IDFormat, logical string) string {
	name, shape := splitShape(logical)
	switch shape {
	case ShapeSpace:
		return name + nbsp
	case ShapeCase:
		return strings.ToUpper(name)
	case shapeUnicode:
		return "κ" + name[1:]
	case shapeLong:
		n := c.keyRoom()
		if f == IDDNSLabel {
			n = min(n, dnsLabelMax)
		}
		return name + "-" + strings.Repeat("x", max(0, n-len(ns)-len(name)-1))
	}
	return logical
}

// LogicalKey turns a key read back from the service (a table's key
// column, the key as the template sends it: see StoredKey) into its
// logical name; ok is false outside the namespace. A key
// the service changed (trimmed, lower-cased) comes back as the name of
// what it became, so its rows land on that action.
func (c Contract) LogicalKey(ns Namespace, stored string) (string, bool) {
	sent, ok := c.sentFromStored(stored)
	if !ok {
		return "", false
	}
	rest, ok := c.keyRule().format.logical(ns, sent)
	if !ok {
		return "", false
	}
	switch {
	case strings.TrimRight(rest, nbsp) != rest && strings.TrimRight(rest, nbsp) != "":
		return Shaped(strings.TrimRight(rest, nbsp), ShapeSpace), true
	case strings.HasPrefix(rest, "K"):
		return Shaped(strings.ToLower(rest), ShapeCase), true
	case strings.HasPrefix(rest, "κ"):
		return Shaped("k"+strings.TrimPrefix(rest, "κ"), shapeUnicode), true
	case strings.Contains(rest, "-") && strings.Trim(rest[strings.Index(rest, "-")+1:], "x") == "":
		return Shaped(rest[:strings.Index(rest, "-")], shapeLong), true
	}
	return rest, true
}

// FoldKey is the logical key as the service must compare it: trim and
// case-insensitive contracts make some shapes one action with their plain
// key.
func (c Contract) FoldKey(logical string) string {
	name, shape := splitShape(logical)
	switch {
	case shape == ShapeSpace && c.KeyCompare == KeyCompareTrim,
		shape == ShapeCase && c.KeyCompare == KeyCompareCaseInsensitive:
		return name
	}
	return logical
}

// KeyLabel shows a logical key as it is sent, readably: "k1␠", "K1", "κ1",
// "k1…(long)"; a key longer than an ID is shown cut, as an ID is (a case
// file may hold a 1 MB one).
func KeyLabel(logical string) string {
	label := keyLabel(logical)
	if len(label) > shownID {
		return Body(label).shown(shownID)
	}
	return label
}

func keyLabel(logical string) string {
	name, shape := splitShape(logical)
	switch shape {
	case ShapeSpace:
		return name + "␠"
	case ShapeCase:
		return strings.ToUpper(name)
	case shapeUnicode:
		return "κ" + name[1:]
	case shapeLong:
		return name + "…(long)"
	}
	return logical
}

func (c Contract) keyMaxLen() int {
	if c.KeyMaxLen > 0 {
		return c.KeyMaxLen
	}
	return defaultKeyMaxLen
}
