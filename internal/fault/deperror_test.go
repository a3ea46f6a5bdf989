package fault_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// dep-error's hook passes the call's reads and fails its first write,
// before it runs, once: with Redis's own error for a code, with a cut
// connection for "cut".
func TestDepErrorAt(t *testing.T) {
	for _, code := range fault.DepErrorCodes {
		at := fault.DepErrorAt(code)
		want := "cut"
		if code != fault.DepCut {
			want = "error " + code
		}
		for _, tc := range []struct {
			pt   respproxy.Point
			want string
		}{
			{respproxy.Point{Kind: respproxy.BeforeCommand, Command: "GET", N: 1}, "continue"},
			{respproxy.Point{Kind: respproxy.AfterCommand, Command: "GET", N: 1}, "continue"},
			{respproxy.Point{Kind: respproxy.BeforeCommand, Command: "SET", N: 1}, want},
			{respproxy.Point{Kind: respproxy.BeforeCommand, Command: "SET", N: 1}, "continue"}, // the client's own retry
			{respproxy.Point{Kind: respproxy.BeforeCommand, Command: "EXEC", N: 1}, "continue"},
		} {
			if got := at(tc.pt).String(); got != tc.want {
				t.Errorf("%s: at %s %s %d: %s, want %s", code, tc.pt.Kind, tc.pt.Command, tc.pt.N, got, tc.want)
			}
		}
	}
}

// A plan names dep-error's failure with its dependency; the decoder
// refuses any other, and shrinking prefers the failures listed first, at
// the same dependency.
func TestDepErrorPoint(t *testing.T) {
	for _, ok := range []string{"redis OOM", "cache cut", "redis_2 LOADING"} {
		if err := fault.CheckCode(model.FaultDepError, ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "OOM", "redis", "redis NOAUTH", "Redis OOM", "redis OOM 1", "40001"} {
		if err := fault.CheckCode(model.FaultDepError, bad); err == nil || !strings.Contains(err.Error(), "dep-error failure") {
			t.Errorf("%q: %v, want a refusal naming dep-error's failures", bad, err)
		}
	}
	if err := fault.CheckCode(model.FaultDBError, "redis OOM"); err == nil {
		t.Error("db-error accepted a dependency's failure")
	}
	if got, want := fault.EarlierCodes(model.FaultDepError, "cache LOADING"), []string{"cache OOM", "cache READONLY"}; !slices.Equal(got, want) {
		t.Errorf("EarlierCodes(cache LOADING) = %q, want %q", got, want)
	}
	if got := fault.EarlierCodes(model.FaultDepError, "redis OOM"); len(got) != 0 {
		t.Errorf("EarlierCodes(redis OOM) = %q, want none", got)
	}
	if got, want := fault.EarlierCodes(model.FaultDBError, "57P01"), []string{"40001", "40P01"}; !slices.Equal(got, want) {
		t.Errorf("EarlierCodes(57P01) = %q, want %q", got, want)
	}
	for _, c := range fault.DepErrorCodes {
		if c != fault.DepCut && !slices.Contains(respproxy.ErrorCodes(), c) {
			t.Errorf("%s has no Redis text of respproxy's", c)
		}
	}
}
