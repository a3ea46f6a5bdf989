package model

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLine bounds a line of a message idemstress prints or writes: an
// error or a violation's detail may quote 200 KB of a service's output, an
// answer or a contract line, which must not fill a terminal, a CI log, a
// report or a case file.
const MaxLine = 4 << 10

// CutLines is s with each line longer than MaxLine bytes cut at a rune's
// start, saying how long it was. It is the one rule for every message
// idemstress shows: stdout and stderr (report.PrintableWriter), the JSON
// report and case files (checks.Violation, a row's errors), JUnit. Data
// that must come back whole (a plan's keys, up to 64 KiB) is not a
// message and is never cut.
func CutLines(s string) string {
	if len(s) <= MaxLine {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) > MaxLine {
			cut := MaxLine
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			lines[i] = fmt.Sprintf("%s… (line cut: %d bytes)", l[:cut], len(l))
		}
	}
	return strings.Join(lines, "\n")
}
