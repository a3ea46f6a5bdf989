package client

import (
	"fmt"
	"strings"
)

// checkSendable refuses a template that net/http could never send (it
// would fail every call before a byte left, and each failure would read as
// a call without an answer): a method or header name that is not an HTTP
// token, a header value with a line break or NUL.
func checkSendable(spec HTTPSpec) error {
	if !isToken(spec.Method) {
		return fmt.Errorf("target.method %q: not an HTTP method; a method is one word of letters, digits and !#$%%&'*+-.^_`|~ (e.g. POST), with no space or line break", spec.Method)
	}
	for name, v := range spec.Headers {
		if !isToken(name) {
			return fmt.Errorf("target.headers: %q is not a header name; a name is one word of letters, digits and !#$%%&'*+-.^_`|~ (e.g. Idempotency-Key), with no space, colon or line break", name)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("target.headers.%s: %q holds a line break or NUL, which no header value may carry", name, v)
		}
	}
	return nil
}

// isToken reports whether s is an HTTP token (RFC 9110, section 5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
