package stress_test

import (
	"maps"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// templated is the sample's config with the key sent inside template:
// the service stores the whole header value as the key.
func templated(t *testing.T, svc *sample.Service, plans int, template string) stress.Config {
	t.Helper()
	cfg, err := svc.Config(plans, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTP.Headers = maps.Clone(cfg.HTTP.Headers)
	cfg.HTTP.Headers["Idempotency-Key"] = template
	tgt, err := client.NewHTTP(cfg.HTTP, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Target = tgt
	return cfg
}

// A key inside a template ("order-{{key}}") is stored as the template
// sends it: a correct service passes, rows and all (it was blamed
// IDEM-002 and IDEM-009 when the observer looked for the bare key).
func TestKeyInTemplateCorrectPasses(t *testing.T) {
	t.Parallel()
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	for _, tc := range []struct {
		template string
		plans    int
	}{{"order-{{key}}", 100}, {"{{key}}-{{key}}", 20}} {
		res, err := stress.Run(t.Context(), templated(t, svc, tc.plans, tc.template))
		if err != nil {
			t.Fatalf("%s: %v", tc.template, err)
		}
		if res.Verdict != checks.Pass {
			for _, f := range res.Failures {
				for _, v := range f.Violations {
					t.Logf("%s: %s: %s", v.Check, v.Message, v.Detail)
				}
			}
			t.Errorf("%s: verdict %s; want pass", tc.template, res.Verdict)
		}
	}
}

// A payload field that carries the key ("subject": "ref-{{key}}") is
// stored filled in: a correct service passes (it was blamed IDEM-010).
func TestKeyInPayloadFieldPasses(t *testing.T) {
	t.Parallel()
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg := templated(t, svc, 30, "{{key}}")
	cfg.Contract.Payload = maps.Clone(cfg.Contract.Payload)
	cfg.Contract.Payload["subject"] = "ref-{{key}}"
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass {
		for _, f := range res.Failures {
			for _, v := range f.Violations {
				t.Logf("%s: %s: %s", v.Check, v.Message, v.Detail)
			}
		}
		t.Errorf("verdict %s; want pass", res.Verdict)
	}
}

// Under the template a real bug is still caught: the sample's
// outbox-on-retry mode enqueues another notification on every replay.
func TestKeyInTemplateBugCaught(t *testing.T) {
	t.Parallel()
	svc := startSample(t, "outbox-on-retry", ticketsvc.LayoutKeys)
	res, err := stress.Run(t.Context(), templated(t, svc, 100, "order-{{key}}"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || res.Failures[0].Check != checks.DuplicateEffect {
		t.Fatalf("verdict %s (%v); want IDEM-001 first", res.Verdict, res.Failures)
	}
	for _, f := range res.Failures {
		for _, v := range f.Violations {
			if v.Check == checks.StrayWrite || v.Check == checks.MissingEffect {
				t.Errorf("%s: %s: the template's rows are not found", v.Check, v.Message)
			}
		}
	}
}
