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

// Key shapes. A logical key is a short name ("k1") with an optional shape
// letter that says how its sent form differs from the plain one: real
// clients send long keys, non-ASCII keys, and retries whose key differs by
// whitespace or case. The letter keeps logical names short (they are in
// every tag) and turns back from a key read out of a table.
const (
	ShapeSpace   = 's' // "k1\u00a0": trailing white space (a no-break space: HTTP strips spaces and tabs around a header value itself)
	ShapeCase    = 'c' // "K1": another letter case
	ShapeUnicode = 'u' // "κ1": not ASCII
	ShapeLong    = 'l' // "k1-xxx…": as long as the contract allows
)

// Shapes lists the key shapes, in the order a generator may draw them.
var Shapes = []byte{ShapeSpace, ShapeCase, ShapeUnicode, ShapeLong}

// Shaped is logical key name with the given shape ("k1" + 's').
func Shaped(name string, shape byte) string { return name + string(shape) }

// PlainKey is a logical key without its shape ("k1s" → "k1").
func PlainKey(logical string) string {
	name, _ := SplitShape(logical)
	return name
}

// splitShape is a logical key's plain name and shape (0 for none).
func SplitShape(logical string) (string, byte) {
	if n := len(logical); n > 2 && strings.IndexByte(string(Shapes), logical[n-1]) >= 0 {
		return logical[:n-1], logical[n-1]
	}
	return logical, 0
}

// FoldKey is the logical key as the service must compare it: trim and
// case-insensitive contracts make some shapes one action with their plain
// key.
func (c Contract) FoldKey(logical string) string {
	name, shape := SplitShape(logical)
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
	name, shape := SplitShape(logical)
	switch shape {
	case ShapeSpace:
		return name + "␠"
	case ShapeCase:
		return strings.ToUpper(name)
	case ShapeUnicode:
		return "κ" + name[1:]
	case ShapeLong:
		return name + "…(long)"
	}
	return logical
}
