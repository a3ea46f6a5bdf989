package model

import (
	"strings"
	"testing"
)

// What a service sends reaches the terminal as text: control sequences
// escaped, newlines and tabs kept, everything else untouched.
func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain ünïcode — ok", "plain ünïcode — ok"},
		{"line\n\tnext", "line\n\tnext"},
		{"\x1b[2Jcleared", `\x1b[2Jcleared`},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\atitle`},
		{"\u009b31m C1 CSI", `\u009b31m C1 CSI`},
		{"abc\u202edcba", `abc\u202edcba`},
		{"\r\x00", `\r\x00`},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// An ID is cut as a body is: its start, its length and its digest.
func TestShowID(t *testing.T) {
	if got := ShowID("7"); got != "7" {
		t.Errorf("ShowID(7) = %q", got)
	}
	long := strings.Repeat("x", 60000)
	got := ShowID(long)
	if len(got) > shownID+64 || !strings.Contains(got, "… (60000 bytes, sha256 ") {
		t.Errorf("ShowID of 60000 characters = %d bytes: %.200q", len(got), got)
	}
	if out := (Outcome{Kind: OK, Status: 201, ID: long}).String(); len(out) > shownID+80 {
		t.Errorf("an outcome with a 60000-character ID renders as %d bytes", len(out))
	}
}
