package identifiers

import (
	"strings"

	"github.com/idemstress/idemstress/internal/model"
)

// defaultKeyMaxLen is the longest key a service is assumed to take.
const defaultKeyMaxLen = 255

// nbsp is the white space of ShapeSpace.
const nbsp = "\u00a0"

// SentKey is the idempotency key sent for a logical key in namespace ns,
// in the contract's key format.
func SentKey(c model.Contract, ns model.Namespace, logical string) string {
	f := keyRule(c).format
	return sentIn(f, ns, shapedKey(c, ns, f, logical))
}

// shapedKey is the text of a logical key after the namespace, as its
// shape says: "k1\u00a0", "K1", "κ1", "k1-xxx…".
func shapedKey(c model.Contract, ns model.Namespace, f model.IDFormat, logical string) string {
	name, shape := model.SplitShape(logical)
	switch shape {
	case model.ShapeSpace:
		return name + nbsp
	case model.ShapeCase:
		return strings.ToUpper(name)
	case model.ShapeUnicode:
		return "κ" + name[1:]
	case model.ShapeLong:
		n := keyRoom(c)
		if f == model.IDDNSLabel {
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
func LogicalKey(c model.Contract, ns model.Namespace, stored string) (string, bool) {
	sent, ok := sentFromStored(c, stored)
	if !ok {
		return "", false
	}
	rest, ok := logicalIn(keyRule(c).format, ns, sent)
	if !ok {
		return "", false
	}
	switch {
	case strings.TrimRight(rest, nbsp) != rest && strings.TrimRight(rest, nbsp) != "":
		return model.Shaped(strings.TrimRight(rest, nbsp), model.ShapeSpace), true
	case strings.HasPrefix(rest, "K"):
		return model.Shaped(strings.ToLower(rest), model.ShapeCase), true
	case strings.HasPrefix(rest, "κ"):
		return model.Shaped("k"+strings.TrimPrefix(rest, "κ"), model.ShapeUnicode), true
	case strings.Contains(rest, "-") && strings.Trim(rest[strings.Index(rest, "-")+1:], "x") == "":
		return model.Shaped(rest[:strings.Index(rest, "-")], model.ShapeLong), true
	}
	return rest, true
}

func keyMaxLen(c model.Contract) int {
	if c.KeyMaxLen > 0 {
		return c.KeyMaxLen
	}
	return defaultKeyMaxLen
}
