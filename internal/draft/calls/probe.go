package calls

import (
	"context"
	"fmt"
	"net/http"

	"github.com/idemstress/idemstress/internal/draft"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// Variants sends the variants a run would send of each field the
// draft lets vary, each call in a namespace of its own (ns plus a suffix),
// and makes each field whose variant the service refused fixed: a run
// whose variants the service refuses ends in a contract error, not a test.
// It returns how many calls it made.
func Variants(ctx context.Context, d *draft.Draft, client *http.Client, ns string) (int, error) {
	if d.Payload == nil || d.URL == "" {
		return 0, nil
	}
	rules := ModelRules(d)
	c := model.Contract{Payload: d.Payload, Fields: rules}
	n := 0
	for v := 1; v <= 64; v++ {
		if f := payloads.ChangedField(c, v); f == "" || v > 1 && f == payloads.ChangedField(c, 1) {
			break
		}
		n++
	}
	calls := 0
	// Two steps of each field: the variants a world of 1–3 payloads per key sends.
	for v := 1; v <= 2*n; v++ {
		field := payloads.ChangedField(c, v)
		if r, ok := d.Rules[field]; ok && r == "fixed" {
			continue
		}
		a, err := Send(ctx, d, client, rules, fmt.Sprintf("%sv%d", ns, v), fmt.Sprintf("%sv%d-k", ns, v), v)
		calls++
		if err != nil {
			return calls, err
		}
		if a.Status/100 != 2 {
			d.Rules[field] = "fixed"
			val, _ := payloads.Pointer(payloads.Send(c, payloads.Identity{}, v, 0), field)
			d.Note("payload_rules."+field, "guessed: the service refused a variant of it (%s, answered %d)", val, a.Status)
		}
	}
	return calls, nil
}
