package stress

import (
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// keyInTag says the service sees the action tag where it looks for the
// key (model.Exercise.KeyInTag): a {{tag}} in the URL or a header, a
// payload field that is {{tag}} alone (Square's "idempotency_key"), or a
// tag in the payload with no {{key}} sent anywhere. A tag inside a text
// of the payload beside a {{key}} (the tagged layout's subject) only marks
// rows; the service still sees the key. When in doubt the tag is taken as
// the key: a transition wrongly called not exercised makes a check
// skipped, where one wrongly called exercised makes it passed.
func keyInTag(cfg Config) bool {
	c := cfg.Contract
	return cfg.HTTP.Sends("tag") || payloads.CarriesAlone(c, "tag") ||
		payloads.Carries(c, "tag") && !cfg.HTTP.Sends("key") && !payloads.Carries(c, "key")
}
