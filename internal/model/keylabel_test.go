package model

import (
	"strings"
	"testing"
)

// A 1 MB key, read from a case file, is shown cut with its length, never
// whole; a short key is shown as ever.
func TestKeyLabelCutsALongKey(t *testing.T) {
	long := strings.Repeat("k", 1<<20)
	got := KeyLabel(long)
	if len(got) > 300 || !strings.Contains(got, "(1048576 bytes") {
		t.Errorf("KeyLabel of a 1 MB key: %d bytes, %.200q", len(got), got)
	}
	if got := (Call{Tenant: "A", Key: long}).String(); len(got) > 320 {
		t.Errorf("a call with a 1 MB key shows %d bytes", len(got))
	}
	if got := KeyLabel("k1"); got != "k1" {
		t.Errorf("KeyLabel(k1) = %q", got)
	}
}
