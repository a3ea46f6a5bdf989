package identifiers_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
)

// Every key shape is sent as it says and read back as the same logical
// key; a key the service changed reads back as what it became.
func TestKeyShapesRoundTrip(t *testing.T) {
	c := model.DefaultContract()
	c.KeyMaxLen = 64
	ns := model.Namespace("i4kx9a1-")
	for _, tc := range []struct{ logical, sent string }{
		{"k1", "i4kx9a1-k1"},
		{"k1s", "i4kx9a1-k1\u00a0"},
		{"k2c", "i4kx9a1-K2"},
		{"k3u", "i4kx9a1-κ3"},
		{"k4l", "i4kx9a1-k4-" + strings.Repeat("x", 64-len("i4kx9a1-k4-"))},
	} {
		sent := identifiers.SentKey(c, ns, tc.logical)
		if sent != tc.sent {
			t.Errorf("SentKey(%q) = %q, want %q", tc.logical, sent, tc.sent)
		}
		if back, ok := identifiers.LogicalKey(c, ns, sent); !ok || back != tc.logical {
			t.Errorf("LogicalKey(%q) = %q, %v; want %q", sent, back, ok, tc.logical)
		}
	}
	if got := len(identifiers.SentKey(c, ns, "k1l")); got != 64 {
		t.Errorf("a long key is %d bytes, want key_max_len 64", got)
	}
	// A service that trimmed or lower-cased the key stored the plain one.
	for _, stored := range []string{"i4kx9a1-k1"} {
		if back, _ := identifiers.LogicalKey(c, ns, stored); back != "k1" {
			t.Errorf("LogicalKey(%q) = %q, want k1", stored, back)
		}
	}
	if _, ok := identifiers.LogicalKey(c, ns, "other-k1"); ok {
		t.Error("a key outside the namespace was read as ours")
	}
}

// The contract's key comparison decides which shapes are one action.
func TestKeyCompareFoldsActions(t *testing.T) {
	for _, tc := range []struct {
		compare model.KeyCompare
		same    []string // shapes of k1 that are k1's action
	}{
		{model.KeyCompareExact, nil},
		{model.KeyCompareTrim, []string{"k1s"}},
		{model.KeyCompareCaseInsensitive, []string{"k1c"}},
	} {
		c := model.DefaultContract()
		c.KeyCompare = tc.compare
		plain := c.ActionOf(model.Call{Tenant: "A", Key: "k1"})
		for _, shaped := range []string{"k1s", "k1c", "k1u", "k1l"} {
			same := c.ActionOf(model.Call{Tenant: "A", Key: shaped}) == plain
			want := strings.Contains(strings.Join(tc.same, ","), shaped)
			if same != want {
				t.Errorf("%s: %s and k1 one action = %v, want %v", tc.compare, shaped, same, want)
			}
		}
	}
}

func TestKeyLabel(t *testing.T) {
	for logical, want := range map[string]string{"k1": "k1", "k1s": "k1␠", "k2c": "K2", "k3u": "κ3", "k4l": "k4…(long)"} {
		if got := model.KeyLabel(logical); got != want {
			t.Errorf("KeyLabel(%q) = %q, want %q", logical, got, want)
		}
	}
}

// An action shows its key as its calls do: a message that names the
// action of a folded key never shows the logical name ("A/k1c").
func TestActionShowsItsKeyAsSent(t *testing.T) {
	a := model.Action{Tenant: "A", Key: "k1c"}
	call := model.Call{Tenant: "A", Key: "k1c"}
	if got := a.String(); got != "A/K1" || !strings.HasPrefix(call.String(), got+" ") {
		t.Errorf("action %q, its call %q: want the action shown A/K1, as the call shows it", got, call.String())
	}
}
