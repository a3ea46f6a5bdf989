package pgproxy

import (
	"strings"
	"unicode"
)

// Fingerprint reduces a statement's text to its shape: lower case, runs of
// white space as one space, string and number literals as "?", so that the
// statements of two calls of one action compare equal even when the
// client (simple protocol) inlined the call's values and spaced them. Parameter
// placeholders ($1) and identifiers are kept.
func Fingerprint(sql string) string {
	var b strings.Builder
	space := false
	var last rune
	rs := []rune(sql)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case r == '\'':
			for i++; i < len(rs); i++ {
				if rs[i] == '\'' {
					if i+1 < len(rs) && rs[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
			r = '?'
		case unicode.IsDigit(r) && !wordBefore(rs, i):
			for i+1 < len(rs) && (unicode.IsDigit(rs[i+1]) || rs[i+1] == '.') {
				i++
			}
			r = '?'
		}
		if space && !tight(last, r) {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
		last = r
	}
	return b.String()
}

// tight: no space belongs between a and b, as pgx's simple protocol
// writes "( 'k' , 1)" for "($1, $2)".
func tight(a, b rune) bool { return a == '(' || b == ')' || b == ',' }

// wordBefore: the digit at i continues an identifier (t1) or a placeholder ($1).
func wordBefore(rs []rune, i int) bool {
	if i == 0 {
		return false
	}
	p := rs[i-1]
	return p == '$' || p == '_' || unicode.IsLetter(p) || unicode.IsDigit(p)
}

// isCommit reports whether a statement ends its transaction block by
// committing it (COMMIT, COMMIT WORK, END). COMMIT PREPARED is not one.
func isCommit(sql string) bool {
	f := strings.Fields(strings.ToLower(strings.TrimRight(strings.TrimSpace(sql), "; ")))
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "commit", "end":
		return len(f) == 1 || f[1] == "work" || f[1] == "transaction"
	}
	return false
}
