package model

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Matcher recognises one kind of answer: a status in Status and every body
// condition holding. Real APIs need the body: Square answers 400 both to a
// reused key and to a missing key and tells them apart by errors[0].code.
type Matcher struct {
	Status []int `json:"status"`
	// Equals: JSON pointer → the value there, as text (a string as it is,
	// a number as written, true, false).
	Equals map[string]string `json:"equals,omitempty"`
	// Matches: JSON pointer → a regular expression the value there must match.
	Matches map[string]string `json:"matches,omitempty"`
	// Present: JSON pointers that must name a value other than null, and
	// Absent: pointers that must name nothing, or null, in a JSON body. A
	// GraphQL API answers everything 200: a created answer has
	// /data/createPayment and no /errors, a refusal /errors/0.
	Present []string `json:"present,omitempty"`
	Absent  []string `json:"absent,omitempty"`
	// ID, for created and replayed only: a JSON pointer to the resource ID
	// in this answer's body ("": where the target finds it by default).
	ID string `json:"id,omitempty"`
}

// Answers are the contract's matchers for each outcome. An outcome with no
// matcher falls back on Statuses (created: any 2xx with an ID).
type Answers struct {
	Created  []Matcher `json:"created,omitempty"`
	Replayed []Matcher `json:"replayed,omitempty"`
	Conflict []Matcher `json:"conflict,omitempty"`
	InFlight []Matcher `json:"in_flight,omitempty"`
	Invalid  []Matcher `json:"invalid,omitempty"`

	// ServerError: answers that say the service failed, judged exactly as
	// a 5xx is (an unknown outcome, or none under server_errors:
	// no-effects). A GraphQL API answers a failed mutation 200 with
	// errors[0].extensions.code INTERNAL_SERVER_ERROR. A 5xx that no
	// other outcome takes is a server error without a matcher.
	ServerError []Matcher `json:"server_error,omitempty"`
	// Taken: the refusal of a unique value another action holds
	// (Contract.Unique); no shorthand, no default.
	Taken []Matcher `json:"taken,omitempty"`
}

// Answer is what a call got back, as far as reading it needs.
type Answer struct {
	Status int
	Body   []byte
	// ID is the resource ID found where the target says by default
	// (target.id), "" when there is none.
	ID string
}

// AnyStatus of class c (2 for 2xx): the statuses of a class, as a list.
func AnyStatus(class int) []int {
	codes := make([]int, 100)
	for i := range codes {
		codes[i] = class*100 + i
	}
	return codes
}

// String renders a matcher as the contract file would: {status: [400],
// equals: {/errors/0/code: IDEMPOTENCY_KEY_REUSED}}.
func (m Matcher) String() string {
	parts := []string{"status: [" + statusList(m.Status) + "]"}
	for _, c := range []struct {
		name string
		m    map[string]string
	}{{"equals", m.Equals}, {"matches", m.Matches}} {
		if len(c.m) == 0 {
			continue
		}
		var kv []string
		for _, ptr := range slices.Sorted(maps.Keys(c.m)) {
			kv = append(kv, ptr+": "+strconv.Quote(c.m[ptr]))
		}
		parts = append(parts, c.name+": {"+strings.Join(kv, ", ")+"}")
	}
	for _, c := range []struct {
		name string
		ptrs []string
	}{{"present", m.Present}, {"absent", m.Absent}} {
		if len(c.ptrs) > 0 {
			parts = append(parts, c.name+": ["+strings.Join(c.ptrs, ", ")+"]")
		}
	}
	if m.ID != "" {
		parts = append(parts, "id: "+m.ID)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// statusList writes a status list with whole classes as 2xx.
func statusList(codes []int) string {
	var out []string
	for i := 0; i < len(codes); i++ {
		if c := codes[i]; c%100 == 0 && i+99 < len(codes) && codes[i+99] == c+99 {
			out = append(out, fmt.Sprintf("%dxx", c/100))
			i += 99
			continue
		}
		out = append(out, strconv.Itoa(codes[i]))
	}
	return strings.Join(out, ", ")
}
