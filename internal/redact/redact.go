// Package redact keeps passwords out of everything idemstress prints or
// writes: database URLs reach error messages (a service's argv, a quoted
// contract line, a driver's error), and none of them may carry a password
// to a terminal, a CI log or a report file; nor may a quoted
// Authorization header carry its token.
package redact

import (
	"io"
	"regexp"
)

// mask stands where a password was.
const mask = "xxxxx"

var (
	// userinfo is the password of a URL: scheme://user:password@host.
	userinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^:/?#@\s"'\x60]*):([^@/\s"'\x60]*)@`)
	// keyword is a password given as key=value (libpq's keyword form, a
	// URL's query, an environment line: PGPASSWORD=, DB_PASSWORD=) or
	// key: value.
	keyword = regexp.MustCompile(`(?i)\b([a-z0-9_]*(?:password|passwd|pwd))(\s*[=:]\s*)('[^']*'|"[^"]*"|[^\s&"',;]+)`)
)

// credential is the token of an Authorization header's value (Bearer
// ya29.…, Basic dXNlcjpwdw==), quoted from a contract line; it holds a
// digit, which tells it from prose ("basic authentication").
var credential = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/-]*[0-9][A-Za-z0-9._~+/-]*=*)`)

// String returns s with every password and bearer or basic credential it
// can recognise masked.
func String(s string) string {
	s = userinfo.ReplaceAllString(s, "${1}:"+mask+"@")
	s = credential.ReplaceAllString(s, "${1}${2}"+mask)
	return keyword.ReplaceAllString(s, "${1}${2}"+mask)
}

// Writer masks passwords in everything written to w. Each Write is
// masked on its own: callers print whole messages at a time (fmt.Fprint,
// a JSON encoder), so a password is never split across two writes.
type Writer struct{ W io.Writer }

// Write writes p to W with its passwords masked. It reports len(p) on
// success, as a masked write is shorter or longer than what was asked.
func (r Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.W, String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Error is err with the passwords in its message masked; errors.Is and
// errors.As still see what it wraps.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return masked{err}
}

type masked struct{ err error }

func (m masked) Error() string { return String(m.err.Error()) }
func (m masked) Unwrap() error { return m.err }
