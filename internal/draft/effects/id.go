package effects

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/idemstress/idemstress/internal/draft"
	"github.com/idemstress/idemstress/internal/draft/calls"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// id finds the main row's ID in the answer and returns the column that
// holds it ("" when none can be named): a member of the body whose value
// is the primary key (the pointer the document gave first), else another
// column of the row (an order number, a PSP reference), else the primary
// key behind a prefix (ch_4, O-00000042 for 4 and 42), or the Location
// header's last segment. A prefixed ID is the answer's, not a column's:
// the effect then names no id, since effects[].id compares as text.
func (d drafter) id(table string, cols map[string]any, pk, tenant, key string, a calls.Answer) string {
	want := text(cols[pk])
	if d.ID != "" && d.ID != "location" && want != "" {
		if v, ok := payloads.Pointer(a.Body, d.ID); ok && v == want {
			d.Notes["target.id"] = fmt.Sprintf("%s; the create call's answer has %s's id there", d.Notes["target.id"], table)
			return pk
		}
	}
	leaves := answerLeaves(a.Body)
	if want != "" {
		if found := pointersTo(leaves, func(v string) bool { return v == want }); len(found) > 0 {
			d.setID(found[0], "guessed: the create call's answer has %s's id (%s) there", table, want)
			return pk
		}
	}
	sent := map[string]bool{} // a value echoed from the payload (1250, order-7) is no ID
	for _, v := range draft.PayloadLeaves("", d.Payload) {
		sent[text(v)] = true
	}
	for _, c := range slices.Sorted(maps.Keys(cols)) {
		v := text(cols[c])
		if c == pk || v == "" || v == tenant || v == key || sent[v] || len(v) < 3 {
			continue
		}
		if found := pointersTo(leaves, func(s string) bool { return s == v }); len(found) > 0 {
			d.setID(found[0], "guessed: the create call's answer has %s.%s (%s) there", table, c, v)
			return c
		}
	}
	if want != "" {
		prefixed := func(s string) bool {
			p, ok := strings.CutSuffix(s, want)
			return ok && !sent[s] && prefixedID.MatchString(p)
		}
		if found := pointersTo(leaves, prefixed); len(found) > 0 {
			v, _ := payloads.Pointer(a.Body, found[0])
			d.setID(found[0], "guessed: the create call's answer has %s's id (%s) there behind a prefix (%s); effects[].id compares as text, so it names none: a query: effect can give it ('prefix' || %s AS id, docs/contract.md)", table, want, v, pk)
			return ""
		}
	}
	if loc := a.Header.Get("Location"); want != "" && loc != "" && strings.HasSuffix(strings.TrimRight(loc, "/"), "/"+want) {
		d.ID = "location"
		d.Note("target.id", "guessed: the Location header ends in %s's id", table)
		return pk
	}
	if want != "" {
		d.Note("target.id", "the create call's answer does not carry %s's id (%s): %.200s", table, want, a.Body)
	}
	return ""
}

// setID sets target.id to ptr, its note replacing any earlier one.
func (d drafter) setID(ptr, format string, args ...any) {
	d.ID = ptr
	if d.Notes == nil {
		d.Notes = map[string]string{}
	}
	d.Notes["target.id"] = fmt.Sprintf(format, args...)
}

// answerLeaves maps the pointer of each string and number of a JSON body
// to it (nil for a body that is no JSON), numbers kept as written.
func answerLeaves(body []byte) map[string]any {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	return draft.PayloadLeaves("", v)
}

// pointersTo lists the pointers of the leaves whose text meets match,
// those named like an ID first, then the shortest.
func pointersTo(leaves map[string]any, match func(string) bool) []string {
	var found []string
	for ptr, v := range leaves {
		if match(text(v)) {
			found = append(found, ptr)
		}
	}
	sort.Slice(found, func(i, j int) bool {
		ii, ij := strings.HasSuffix(strings.ToLower(found[i]), "id"), strings.HasSuffix(strings.ToLower(found[j]), "id")
		if ii != ij {
			return ii
		}
		return len(found[i]) < len(found[j]) || len(found[i]) == len(found[j]) && found[i] < found[j]
	})
	return found
}

// prefixedID is what may stand before a numeric ID in an API's own ID:
// letters and a separator, then zeros that pad it (ch_, O-000000, pay-).
var prefixedID = regexp.MustCompile(`^[A-Za-z]+[_\-:.]?0*$`)

// text is a JSON value as text, numbers canonical (1250.00 is 1250).
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	}
	return fmt.Sprint(v)
}
