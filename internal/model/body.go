package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// shownBody bounds how much of a body a report shows: a 5 MiB payload must
// not make a 178 MB report.
const shownBody = 1 << 10

// Body is a request or answer body. It is kept whole for judging, and
// shown bounded: as text when it is UTF-8, cut to ShownBody bytes with its
// length and digest when it is longer.
type Body []byte

// Excerpt is the start of b, at most n bytes cut at a character boundary,
// marked with the whole body's length when it was cut: what a history keeps
// of an answer, readable as text whatever n is.
func Excerpt(b []byte, n int) Body {
	if len(b) <= n {
		return Body(b)
	}
	cut := n
	for cut > 0 && cut < len(b) && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return Body(fmt.Appendf(slices.Clip(b[:cut:cut]), "… (%d bytes)", len(b)))
}

// String is the body as a report shows it.
func (b Body) String() string { return b.shown(shownBody) }

// shown is b as text, cut to n bytes with its length and digest when longer.
func (b Body) shown(n int) string {
	if !utf8.Valid(b) {
		return fmt.Sprintf("(%d bytes, not UTF-8, %s)", len(b), b.digest())
	}
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes, %s)", b[:cut], len(b), b.digest())
}

// shownID bounds how much of a resource ID a report shows: IDs come from
// the service, and a 60,000-character one must not fill the screen.
const shownID = 128

// ShowID is an ID as a report shows it: whole when short, else cut as a
// body is, with its length and digest.
func ShowID(id string) string { return Body(id).shown(shownID) }

// Printable is s with the characters that would act on a terminal instead
// of being shown escaped as Go writes them ("\x1b", "\u202e"): control
// characters but newline and tab, and the bidirectional overrides and
// isolates. Bodies, IDs and errors come from the service; ESC[2J or an OSC
// title sequence in one must reach the screen as text.
func Printable(s string) string {
	i := strings.IndexFunc(s, acts)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if acts(r) {
			q := strconv.QuoteRune(r) // '\x1b'
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// acts reports whether a terminal acts on r rather than showing it.
func acts(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case unicode.IsControl(r):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

func (b Body) digest() string {
	sum := sha256.Sum256(b)
	return "sha256 " + hex.EncodeToString(sum[:8])
}

// MarshalJSON writes the body as String shows it: readable text, bounded.
func (b Body) MarshalJSON() ([]byte, error) { return json.Marshal(b.String()) }

// UnmarshalJSON reads a body back from a report: what the report shows,
// which is the whole body when it was short and UTF-8.
func (b *Body) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*b = Body(s)
	return nil
}
