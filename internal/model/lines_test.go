package model

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// A line past MaxLine is cut at a character's start, saying how long it
// was; shorter lines, and the other lines of the text, stay whole.
func TestCutLines(t *testing.T) {
	short := strings.Repeat("x", MaxLine)
	long := strings.Repeat("é", MaxLine) // twice MaxLine bytes
	if got := CutLines(short); got != short {
		t.Errorf("a line of MaxLine bytes was changed: %d bytes", len(got))
	}
	got := CutLines("first\n" + long + "\nlast")
	lines := strings.Split(got, "\n")
	if len(lines) != 3 || lines[0] != "first" || lines[2] != "last" {
		t.Fatalf("lines %d, first %.20q, last %.20q", len(lines), lines[0], lines[len(lines)-1])
	}
	want := " (line cut: " + strconv.Itoa(2*MaxLine) + " bytes)"
	if cut := lines[1]; len(cut) > MaxLine+len("…"+want) || !strings.HasSuffix(cut, "…"+want) || !utf8.ValidString(cut) {
		t.Errorf("cut line of %d bytes ends %q, valid UTF-8 %v", len(cut), cut[max(0, len(cut)-40):], utf8.ValidString(cut))
	}
}
