package stress_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// The sample service validates channel (email or sms) and priority (1–5).
// Declared as an enum and a range, or fixed, its fields stay valid in
// every variant and the correct service passes; left a plain string, the
// first variant the service refuses is explained as the contract's
// mistake, naming the field, instead of blaming the service.
func TestValidatedFieldRules(t *testing.T) {
	t.Parallel()
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	for _, tc := range []struct {
		name  string
		rules map[string]model.FieldRule
		field string // "" for a pass
	}{
		{"enum and range", map[string]model.FieldRule{"/channel": {Enum: []any{"email", "sms"}}, "/priority": {Int: &model.Range{Min: 1, Max: 5}}}, ""},
		{"fixed", map[string]model.FieldRule{"/channel": {Fixed: true}, "/priority": {Fixed: true}}, ""},
		{"channel a plain string", map[string]model.FieldRule{"/priority": {Int: &model.Range{Min: 1, Max: 5}}}, "/channel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := svc.Config(100, 3)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Contract.Fields = tc.rules
			res, err := stress.Run(t.Context(), cfg)
			if tc.field == "" {
				if err != nil || res.Verdict != checks.Pass {
					t.Fatalf("verdict %v, %v; want pass", res, err)
				}
				return
			}
			if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "refused variant") ||
				!strings.Contains(err.Error(), "field "+tc.field) || !strings.Contains(err.Error(), "must be") {
				t.Fatalf("err %v; want a contract error naming %s and quoting the refusal", err, tc.field)
			}
		})
	}
}
