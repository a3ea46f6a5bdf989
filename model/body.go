package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// ShownBody bounds how much of a body a report shows: a 5 MiB payload must
// not make a 178 MB report.
const ShownBody = 1 << 10

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
func (b Body) String() string {
	if !utf8.Valid(b) {
		return fmt.Sprintf("(%d bytes, not UTF-8, %s)", len(b), b.digest())
	}
	if len(b) <= ShownBody {
		return string(b)
	}
	cut := ShownBody
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes, %s)", b[:cut], len(b), b.digest())
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
