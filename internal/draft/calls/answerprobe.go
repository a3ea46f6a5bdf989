package calls

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/draft"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// Answers asks the service how it answers what the contract must
// name, when no document said so: the same call again (a replay), the key
// with another payload (conflict) and a call without the key (invalid),
// in a namespace of its own. It replaces the IETF draft's guessed
// statuses with what came back: a replay that is no 2xx but carries the
// created ID becomes answers.replayed with that id:, two outcomes of one
// status are told apart by a body member whose value differs. An
// in-flight answer needs two calls at once, so it is not probed: it keeps
// the IETF draft's 409 unless a probed outcome has that status, and is
// then a TODO; after a document that lists no in-progress answer it stays
// []. It returns how many calls it made.
func Answers(ctx context.Context, d *draft.Draft, client *http.Client, ns string) (int, error) {
	if len(d.Answers) > 0 || !strings.HasPrefix(d.Notes["statuses"], "guessed: the IETF") || d.Payload == nil || d.URL == "" {
		return 0, nil
	}
	probed, createdID, calls, err := probeRefusals(ctx, d, client, ns)
	if err != nil || probed == nil {
		return calls, err
	}
	d.Statuses = map[string][]int{}
	delete(d.Notes, "statuses")
	byStatus := recordProbed(d, probed, createdID)
	fillUnprobed(d, probed, byStatus)
	return calls, nil
}

// probeRefusals makes the calls: a create, its replay, the key with
// another payload (when a field can change) and a call without the key
// (when the key is not in the path). It returns the answers that were
// refusals by outcome, and the created ID; the map is nil when the create
// itself was not answered 2xx, which leaves nothing to compare with.
func probeRefusals(ctx context.Context, d *draft.Draft, client *http.Client, ns string) (probed map[string]Answer, createdID string, calls int, err error) {
	rules := ModelRules(d)
	tenant, key := ns+"A", ns+"k1"
	send := func(id payloads.Identity, v int) (Answer, error) {
		calls++
		return sendAs(ctx, d, client, rules, id, v)
	}
	created, err := send(payloads.Identity{Tenant: tenant, Key: key}, 0)
	if err != nil || created.Status/100 != 2 {
		return nil, "", calls, err
	}
	createdID, _ = payloads.Pointer(created.Body, d.ID)
	replay, err := send(payloads.Identity{Tenant: tenant, Key: key}, 0)
	if err != nil {
		return nil, "", calls, err
	}
	probed = map[string]Answer{}
	if replay.Status/100 != 2 {
		probed["replayed"] = replay
	}
	if c := (model.Contract{Payload: d.Payload, Fields: rules}); payloads.ChangedField(c, 1) != "" {
		changed, err := send(payloads.Identity{Tenant: tenant, Key: key}, 1)
		if err != nil {
			return nil, "", calls, err
		}
		if changed.Status/100 == 4 {
			probed["conflict"] = changed
		}
	}
	if !keyInPath(d) {
		keyless, err := send(payloads.Identity{Tenant: ns + "B", NoKey: true}, 0)
		if err != nil {
			return nil, "", calls, err
		}
		if keyless.Status/100 == 4 {
			probed["invalid"] = keyless
		}
	}
	return probed, createdID, calls, nil
}

// recordProbed turns each probed answer into a status, or into an answers:
// matcher when its status is shared with another outcome (told apart by a
// body member) or it is a replay (found by the created ID). It returns the
// outcomes by status, which the in-flight guess must not collide with.
func recordProbed(d *draft.Draft, probed map[string]Answer, createdID string) map[int][]string {
	byStatus := map[int][]string{}
	for _, o := range []string{"replayed", "conflict", "invalid"} {
		if a, ok := probed[o]; ok {
			byStatus[a.Status] = append(byStatus[a.Status], o)
		}
	}
	for _, o := range []string{"replayed", "conflict", "invalid"} {
		a, ok := probed[o]
		if !ok {
			continue
		}
		shared := byStatus[a.Status]
		m := draft.Matcher{Status: a.Status}
		why := fmt.Sprintf("guessed: probed: %s was answered %d", what[o], a.Status)
		if o == "replayed" {
			m.ID = idWhere(a.Body, createdID)
			if m.ID == "" {
				d.Note("answers.replayed", "probed: a replay was answered %d without the created ID (%s): %.200s; say where it is, or what a replay is", a.Status, createdID, a.Body)
				continue
			}
		}
		if len(shared) > 1 || o == "replayed" {
			ptr, val := telling(a.Body, shared, o, probed)
			if ptr == "" && len(shared) > 1 {
				d.Note("statuses."+o, "probed: %s and %s were both answered %d with nothing in the body telling them apart", what[shared[0]], what[shared[1]], a.Status)
				d.Statuses[o] = nil
				continue
			}
			if ptr != "" {
				m.Equals = map[string]string{ptr: val}
				why += fmt.Sprintf(", with %s at %s", val, ptr)
			}
		}
		if len(shared) == 1 && o != "replayed" {
			d.Statuses[o] = []int{a.Status}
			d.Note("statuses."+o, "%s", why)
			continue
		}
		if d.Answers == nil {
			d.Answers = map[string][]draft.Matcher{}
		}
		d.Answers[o] = append(d.Answers[o], m)
		d.Note("answers."+o, "%s", why)
	}
	return byStatus
}

// fillUnprobed writes the statuses the probes did not settle: in-flight
// (never probed: it takes two calls at once), and a conflict or invalid
// call the service did not refuse with a 4xx.
func fillUnprobed(d *draft.Draft, probed map[string]Answer, byStatus map[int][]string) {
	if d.NoInFlight {
		d.Statuses["in_flight"] = []int{} // the document's silence, noted already
	} else if byStatus[409] == nil {
		d.Statuses["in_flight"] = []int{409}
		d.Note("statuses.in_flight", "guessed: the IETF draft's; not probed (it takes two calls at once)")
	} else {
		d.Statuses["in_flight"] = nil
		d.Note("statuses.in_flight", "not probed (it takes two calls at once), and the IETF draft's 409 answers %s here: give the in-flight status, [] if there is none, or answers.in_flight with an equals:", what[byStatus[409][0]])
	}
	if probed["conflict"].Status == 0 {
		d.Statuses["conflict"] = []int{422}
		d.Note("statuses.conflict", "guessed: the IETF draft's; the key with another payload was answered %s", "2xx or not at all")
	}
	if probed["invalid"].Status == 0 {
		d.Statuses["invalid"] = []int{}
		d.Note("statuses.invalid", "probed: a call without the key was not refused with a 4xx; set key_required: false if it is a plain create")
	}
}

var what = map[string]string{"replayed": "a replay", "conflict": "the key with another payload", "invalid": "a call without the key"}

// idWhere is the pointer to the member of body whose value is id.
func idWhere(body []byte, id string) string {
	if id == "" {
		return ""
	}
	for _, ptr := range leafPointers(body) {
		if v, _ := payloads.Pointer(body, ptr); v == id {
			return ptr
		}
	}
	return ""
}

// telling finds a string member of body whose value none of the other
// probed answers of the same status has there (the error code that tells a
// replay from a conflict): names with "code" or "error" first, then the
// shortest pointer.
func telling(body []byte, shared []string, self string, probed map[string]Answer) (string, string) {
	ptrs := leafPointers(body)
	rank := func(p string) int {
		l := strings.ToLower(p)
		if strings.Contains(l, "code") || strings.Contains(l, "error") || strings.Contains(l, "reason") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(ptrs, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return len(a) - len(b)
	})
next:
	for _, p := range ptrs {
		v, _ := payloads.Pointer(body, p)
		if v == "" || strings.ContainsAny(v, " \n") && len(v) > 40 {
			continue
		}
		for _, o := range shared {
			if o == self {
				continue
			}
			if w, ok := payloads.Pointer(probed[o].Body, p); ok && w == v {
				continue next
			}
		}
		if self == "replayed" && strings.HasSuffix(strings.ToLower(p), "id") {
			continue
		}
		return p, v
	}
	return "", ""
}

// leafPointers lists the pointers of body's strings and numbers, sorted.
func leafPointers(body []byte) []string {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	return slices.Sorted(maps.Keys(draft.PayloadLeaves("", v)))
}
