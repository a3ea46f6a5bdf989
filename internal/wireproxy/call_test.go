package wireproxy_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/wireproxy"
)

// The proxies' types are stood in for by strings: a point's name, an
// action's ("" is the zero action, go on), a step, a fault delivered.
func TestConsultAsksOwnHookElseFallback(t *testing.T) {
	untied := false
	c := wireproxy.NewCall[string, string, string, string]("A/k1", func() { untied = true })
	proxy := func(pt string) string { return "proxy at " + pt }
	own := func(pt string) string { return "own at " + pt }
	steps := []struct {
		own      func(string) string
		fallback func(string) string
		want     string
	}{
		{nil, nil, ""},
		{nil, proxy, "proxy at p2"},
		{own, proxy, "own at p3"},
		{own, nil, "own at p4"},
		{nil, proxy, "proxy at p5"}, // SetAt(nil): the proxy's again
	}
	var want []string
	for i, st := range steps {
		pt := "p" + string(rune('1'+i))
		c.SetAt(st.own)
		if got := wireproxy.Consult(c, pt, "step "+pt, st.fallback); got != st.want {
			t.Errorf("Consult(%s) = %q, want %q", pt, got, st.want)
		}
		want = append(want, "step "+pt)
	}
	if got := c.Trace(); !slices.Equal(got, want) {
		t.Errorf("Trace = %q, want every point consulted, in order: %q", got, want)
	}
	if c.Name() != "A/k1" {
		t.Errorf("Name = %q, want A/k1", c.Name())
	}
	c.Untie()
	if !untied {
		t.Error("Untie did not call the proxy's untie")
	}
}

func TestInjectedIsACopy(t *testing.T) {
	c := wireproxy.NewCall[string, string, string, string]("A/k1", func() {})
	wireproxy.Inject(c, "cut before 1")
	got := c.Injected()
	got[0] = "changed"
	wireproxy.Inject(c, "error after 2")
	want := []string{"cut before 1", "error after 2"}
	if got := c.Injected(); !slices.Equal(got, want) {
		t.Errorf("Injected = %q, want %q", got, want)
	}
}
