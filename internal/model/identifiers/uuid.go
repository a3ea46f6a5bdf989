package identifiers

import (
	"strings"

	"github.com/idemstress/idemstress/internal/model"
)

// A UUID identifier codes its namespace and logical name in its hex
// digits, so that the namespace is a prefix of its text: a plan's keys
// share the text prefix of the plan's namespace, and a run's share the
// run's (found by a prefix range on a text column, or by a range of UUIDs
// on a uuid column, whose order is that of the text: lower-case hex digits
// sort as the bytes they spell).
//
// Of the 32 hex digits, the 13th is the version (4) and the 17th the
// variant (8), as RFC 9562 says of a random UUID; the 30 others are data:
// the namespace's code, then one digit that counts the digits of the
// logical name's code, then that code, then zeros. The code spends one
// digit on 0-9 and a-e (most of a namespace: its run's random part is hex)
// and escapes the rest with f: "f"+x for '-' and f-s, "ff"+x, "fff"+x and
// "ffff"+x for the other letters and '_', '.'. So "is4d980a21-1-" takes
// 17 digits and "k1" 4 with its count, leaving room for a case number of
// six digits and for the f's of the random part.
const (
	uuidDigits   = 30
	uuidVersion  = 12 // of the 32 digits
	uuidVariant  = 16
	uuidTemplate = "00000000-0000-4000-8000-000000000000"
)

// uuidEscapes are the characters coded after one, two, three and four f's.
var uuidEscapes = [...]string{"-fghijklmnopqrs", "tuvwxyzABCDEFGH", "IJKLMNOPQRSTUVW", "XYZ_."}

// uuidCode is s in the code above; ok is false for a character it has no
// code for.
func uuidCode(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'e' {
			b.WriteRune(r)
			continue
		}
		found := false
		for n, esc := range uuidEscapes {
			if i := strings.IndexRune(esc, r); i >= 0 {
				b.WriteString(strings.Repeat("f", n+1))
				b.WriteByte(hexDigit(i))
				found = true
				break
			}
		}
		if !found {
			return b.String(), false
		}
	}
	return b.String(), true
}

// uuidDecode is the text of a whole code; ok is false for one that is cut
// short or codes nothing.
func uuidDecode(code string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(code); {
		n := 0
		for i+n < len(code) && code[i+n] == 'f' {
			n++
		}
		if n == 0 {
			b.WriteByte(code[i])
			i++
			continue
		}
		if n > len(uuidEscapes) || i+n >= len(code) {
			return "", false
		}
		x := hexValue(code[i+n])
		if x >= len(uuidEscapes[n-1]) {
			return "", false
		}
		b.WriteByte(uuidEscapes[n-1][x])
		i += n + 1
	}
	return b.String(), true
}

func hexDigit(i int) byte { return "0123456789abcdef"[i] }

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return 16
}

// uuidData is the data digits of namespace ns and logical text rest, cut
// at 30 when they do not fit (UUIDRoom tells a run before it starts).
func uuidData(ns model.Namespace, rest string) string {
	nsCode, _ := uuidCode(string(ns))
	code, _ := uuidCode(rest)
	d := nsCode + string(hexDigit(min(len(code), 15))) + code
	d += strings.Repeat("0", max(0, uuidDigits-len(d)))
	return d[:uuidDigits]
}

// UUIDRoom is how many data digits a UUID identifier of namespace ns and
// logical text rest leaves unused: negative when it does not fit.
func UUIDRoom(ns model.Namespace, rest string) int {
	nsCode, _ := uuidCode(string(ns))
	code, _ := uuidCode(rest)
	return uuidDigits - len(nsCode) - 1 - len(code)
}

// uuidText spells data digits (up to 30) as a UUID, the version and
// variant digits in their places; missing data digits are zeros.
func uuidText(data string) string {
	b := []byte(uuidTemplate)
	for i := 0; i < len(data); i++ {
		b[uuidTextAt(i)] = data[i]
	}
	return string(b)
}

// uuidTextAt is where data digit i stands in a UUID's text.
func uuidTextAt(i int) int {
	j := i // of the 32 digits
	if j >= uuidVersion {
		j++
	}
	if j >= uuidVariant {
		j++
	}
	at := j
	for _, dash := range []int{8, 12, 16, 20} {
		if j >= dash {
			at++ // the dash before it
		}
	}
	return at
}

// uuidPrefix is the text every UUID identifier of a namespace that starts
// with ns starts with.
func uuidPrefix(ns model.Namespace) string {
	code, _ := uuidCode(string(ns))
	code = code[:min(len(code), uuidDigits)]
	if code == "" {
		return ""
	}
	return uuidText(code)[:uuidTextAt(len(code)-1)+1]
}

// uuidLogical is the logical text of a UUID identifier of namespace ns;
// ok is false for a value that is no UUID, or not of the namespace. A
// UUID read back in upper case is the same UUID.
func uuidLogical(ns model.Namespace, s string) (string, bool) {
	s = strings.ToLower(s)
	if !model.IDUUID.Accepts(s) {
		return "", false
	}
	var data strings.Builder
	for i := range uuidDigits {
		data.WriteByte(s[uuidTextAt(i)])
	}
	nsCode, _ := uuidCode(string(ns))
	rest, ok := strings.CutPrefix(data.String(), nsCode)
	if !ok || rest == "" {
		return "", false
	}
	n := hexValue(rest[0])
	if 1+n > len(rest) {
		return "", false
	}
	return uuidDecode(rest[1 : 1+n])
}
