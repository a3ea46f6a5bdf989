package stress

import (
	"slices"

	"github.com/idemstress/idemstress/internal/model"
)

// startCoverage is a run's coverage before its first plan: every call
// transition and every fault the run plans at zero, so that the report
// names what never happened.
func startCoverage(cfg Config) model.Coverage {
	faults := slices.Clone(cfg.Faults)
	if cfg.DBStall != "" {
		faults = append(faults, model.FaultDBStall)
	}
	cov := model.NewCoverage(faults)
	if cfg.World.Unique {
		cov[model.TakenValue] = 0 // plans may send another action's unique values
	}
	return cov
}

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
	return cfg.HTTP.Sends("tag") || c.CarriesAlone("tag") ||
		c.Carries("tag") && !cfg.HTTP.Sends("key") && !c.Carries("key")
}
