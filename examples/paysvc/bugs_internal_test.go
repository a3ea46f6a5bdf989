package paysvc

import (
	"reflect"
	"strings"
	"testing"
)

// A list of modes switches in exactly the mistakes of its members: every
// field of behavior is the OR of theirs. A field that or forgets fails here
// for any mode that sets it.
func TestBehaviorOfSeveralModesIsTheirOr(t *testing.T) {
	set := make([]bool, reflect.TypeFor[behavior]().NumField())
	for _, a := range bugModes {
		for _, b := range bugModes {
			got, err := behaviorFor(a.name + "," + b.name)
			if err != nil {
				t.Fatal(err)
			}
			g, va, vb := reflect.ValueOf(got), reflect.ValueOf(a.b), reflect.ValueOf(b.b)
			for i := range g.NumField() {
				if want := va.Field(i).Bool() || vb.Field(i).Bool(); g.Field(i).Bool() != want {
					t.Errorf("%s,%s: %s = %v, want %v", a.name, b.name, g.Type().Field(i).Name, g.Field(i).Bool(), want)
				}
				set[i] = set[i] || va.Field(i).Bool()
			}
		}
	}
	for i, ok := range set {
		if !ok {
			t.Errorf("no mode sets behavior.%s, so this test cannot see whether or keeps it", reflect.TypeFor[behavior]().Field(i).Name)
		}
	}
}

func TestBehaviorForRefusesBadLists(t *testing.T) {
	for _, bug := range []string{"replay-changed,no-such-bug", "replay-changed,", ",", "no-such-bug"} {
		_, err := behaviorFor(bug)
		if err == nil {
			t.Errorf("%q accepted", bug)
			continue
		}
		for _, name := range Bugs() {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("%q: error %q does not list %q", bug, err, name)
			}
		}
	}
	if b, err := behaviorFor(" replay-changed , merchant-leak"); err != nil || !b.replayChanged || !b.merchantLeak {
		t.Errorf("spaces around names: %+v, %v", b, err)
	}
}
