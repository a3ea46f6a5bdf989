package effect_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/identifiers"
)

// A delivery finds its action by its key and tenant as sent, or by the
// tag in a field, and only in its own namespace.
func TestDeliveryOf(t *testing.T) {
	c := model.DefaultContract()
	ns := model.Namespace("ns1-")
	byKey := effect.Sink{Name: "hooks", Key: "/key", Tenant: "/tenant"}
	byTag := effect.Sink{Name: "hooks", Tag: "/subject"}
	tag := identifiers.Tag(ns, c, model.Call{Tenant: "A", Key: "k1"})
	for _, tc := range []struct {
		name string
		sink effect.Sink
		body string
		want model.Action
		ok   bool
	}{
		{"key and tenant", byKey, `{"key":"ns1-k1","tenant":"ns1-A"}`, model.Action{Tenant: "A", Key: "k1"}, true},
		{"another namespace's key", byKey, `{"key":"ns2-k1","tenant":"ns2-A"}`, model.Action{}, false},
		{"no key", byKey, `{"tenant":"ns1-A"}`, model.Action{}, false},
		{"not JSON", byKey, `key=ns1-k1`, model.Action{}, false},
		{"tag in a field", byTag, `{"subject":"Printer offline [` + tag + `]"}`, model.Action{Tenant: "A", Key: "k1"}, true},
		{"no tag", byTag, `{"subject":"Printer offline"}`, model.Action{}, false},
	} {
		got, ok := effect.DeliveryOf(c, ns, tc.sink, []byte(tc.body))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %v %v, want %v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// The defaults a sink that says nothing gets.
func TestSinkDefaults(t *testing.T) {
	s := effect.Sink{Name: "hooks", Key: "/key"}
	if s.Mode() != effect.ExactlyOnce || s.EventsPerAction() != 1 || s.Within() != effect.DefaultDeliveryWithin || s.SlowFor() != effect.DefaultSinkSlow || s.QuietFor() != effect.DefaultSinkQuiet {
		t.Errorf("defaults: %s %d %s %s", s.Mode(), s.EventsPerAction(), s.Within(), s.SlowFor())
	}
	if err := effect.ValidateSinks([]effect.Sink{s}); err != nil {
		t.Errorf("a minimal sink: %v", err)
	}
	for _, q := range []time.Duration{-time.Millisecond, effect.DefaultDeliveryWithin + time.Millisecond} {
		loud := s
		loud.Quiet = q
		if err := effect.ValidateSinks([]effect.Sink{loud}); err == nil || !strings.Contains(err.Error(), "quiet") {
			t.Errorf("quiet %s: %v", q, err)
		}
	}
	if s.Placeholder() != "{sink.hooks.url}" {
		t.Errorf("placeholder %q", s.Placeholder())
	}
}
