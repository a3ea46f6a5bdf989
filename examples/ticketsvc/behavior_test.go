package ticketsvc

import (
	"reflect"
	"testing"
)

// A comma list switches in every mode it names; or keeps every switch.
func TestBehaviorOr(t *testing.T) {
	var all behavior
	for _, m := range bugModes {
		all = all.or(m.b)
	}
	v := reflect.ValueOf(all)
	for i := range v.NumField() {
		if !v.Field(i).Bool() {
			t.Errorf("or of every mode lacks %s: or() must name every field of behavior", v.Type().Field(i).Name)
		}
	}
	b, err := behaviorFor("no-payload-check,global-keys")
	if err != nil {
		t.Fatal(err)
	}
	if want := (behavior{skipPayloadCheck: true, globalKeys: true}); b != want {
		t.Errorf("no-payload-check,global-keys: %+v, want %+v", b, want)
	}
	if _, err := behaviorFor("global-keys,nonsense"); err == nil {
		t.Errorf("a list with an unknown mode was accepted")
	}
}
