package payloads

import "testing"

// An answer's number ID 4480.0 is the row's 4480; a string stays a string.
func TestIDPointer(t *testing.T) {
	for doc, want := range map[string]string{
		`{"id": 4480.0}`:        "4480",
		`{"id": 4480}`:          "4480",
		`{"id": -0.00}`:         "0",
		`{"id": 4480.5}`:        "4480.5",
		`{"id": "4480.0"}`:      "4480.0",
		`{"id": 1e3}`:           "1e3",
		`{"id": "T-1.0"}`:       "T-1.0",
		`{"data": {"id": 7.0}}`: "",
	} {
		if got, _ := IDPointer([]byte(doc), "/id"); got != want {
			t.Errorf("IDPointer(%s) = %q, want %q", doc, got, want)
		}
	}
	if got, _ := IDPointer([]byte(`{"data": {"id": 7.0}}`), "/data/id"); got != "7" {
		t.Errorf("nested: %q", got)
	}
}
