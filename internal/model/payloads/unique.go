package payloads

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/idemstress/idemstress/internal/model"
)

// A resource may carry a second unique field beside its key (a Compute
// instance's name beside its requestId): another action that sends the
// value an action holds is refused (Compute's alreadyExists), whatever its
// key. The contract's unique: names such fields. Each action then sends
// a value of its own, derived from its tag, so a correct service with a
// unique column is never refused for values idemstress made collide; a
// call with UniqueOf sends another action's value on purpose, and must be
// refused as taken while that action holds it.

// uniqueValue is the value of unique field ptr for the call fill fills:
// the base value with the tag of the action whose values it sends in place
// of {{tag}}, or after a dash when the base has none (an underscore under
// tag_format: word, whose alphabet has no dash), the base cut so that the
// value stays within the field's max_len. With no tag (the base
// payload as the contract wrote it) the base is filled in as it is.
func uniqueValue(c model.Contract, ptr, base string, fill filler) string {
	tag := fill.id.Unique
	if tag == "" {
		tag = fill.id.Tag
	}
	if tag == "" {
		return fill.replace(base)
	}
	if strings.Contains(base, "{{tag}}") {
		own := fill
		own.id.Tag = tag
		return own.replace(base)
	}
	base = fill.replace(base)
	if max := c.Fields[ptr].MaxLen; max > 0 {
		room := max - utf8.RuneCountInString(tag) - 1
		for room >= 0 && utf8.RuneCountInString(base) > room {
			_, n := utf8.DecodeLastRuneInString(base)
			base = base[:len(base)-n]
		}
	}
	sep := "-"
	if c.TagFormat == model.IDWord {
		sep = "_"
	}
	return base + sep + tag
}

// KeylessUnique is the tag whose unique values the n-th keyless create of
// a plan sends (n from 1): under key_required: false each is a create of
// its own, but its tag (Namespace.Tag) names only its tenant, so tag alone
// would make two keyless creates of the tenant collide. It is the tag
// with n after it, in the tag's alphabet, so that the tag in it still
// parses (ParseTag) and names the tenant its rows are counted under.
func KeylessUnique(c model.Contract, tag string, n int) string {
	if c.TagFormat == model.IDDNSLabel {
		// A DNS tag ends where no letter or digit follows.
		return fmt.Sprintf("%s-%d", tag, n)
	}
	return fmt.Sprintf("%s%d", tag, n)
}

// CheckUnique refuses unique: pointers that name no string field of the
// payload, a field fixed or with an enum (each action needs its own value),
// one that carries {{key}} or {{tenant}} (it is the key: a natural key
// needs no unique:), or one too short for a tag; and a taken: matcher with
// no unique field whose refusal it could read.
func CheckUnique(c model.Contract) error {
	if len(c.Answers.Taken) > 0 && len(c.Unique) == 0 {
		return fmt.Errorf("answers.taken: no unique: field says which values another action's call may hold; list them (unique: [/name]) or drop answers.taken")
	}
	for _, ptr := range c.Unique {
		raw, found := Pointer(Render(c, "", 0, 0), ptr)
		v, _ := resolvePayload(c.Payload, ptr)
		s, isString := v.(string)
		rule := c.Fields[ptr]
		switch {
		case !found || !isString:
			return fmt.Errorf("unique: %s: want a pointer to a string field of the payload (it points at %s)", ptr, describeValue(raw, found))
		case identity(s):
			return fmt.Errorf("unique: %s carries {{key}} or {{tenant}}: it is the key itself, which needs no unique: entry", ptr)
		case rule.Fixed || rule.Enum != nil:
			return fmt.Errorf("unique: %s has the rule fixed or enum, but each action sends its own value of a unique field; drop the rule", ptr)
		case rule.MaxLen > 0 && rule.MaxLen < 17:
			return fmt.Errorf("unique: %s: max_len %d leaves no room for an action's tag (up to 16 characters and a dash); want 17 or more", ptr, rule.MaxLen)
		}
	}
	if i := firstDuplicate(c.Unique); i >= 0 {
		return fmt.Errorf("unique: %s is listed twice", c.Unique[i])
	}
	return nil
}

func describeValue(raw string, found bool) string {
	if !found {
		return "nothing"
	}
	return raw
}

func resolvePayload(p map[string]any, ptr string) (any, bool) {
	return resolve(map[string]any(p), ptr)
}

func firstDuplicate(ss []string) int {
	for i, s := range ss {
		if slices.Contains(ss[:i], s) {
			return i
		}
	}
	return -1
}
