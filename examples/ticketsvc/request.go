package ticketsvc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"unicode/utf8"
)

const (
	// maxBodyBytes bounds a request body; a ticket is a few hundred bytes.
	maxBodyBytes = 1 << 20
	// maxIDBytes bounds a key or tenant: both go into one unique index
	// entry, which PostgreSQL caps at about 2.7 kB.
	maxIDBytes = 1024
)

// createRequest is a validated POST /tickets call.
type createRequest struct {
	tenant string
	// key is stored with the ticket; lookup finds the action (the key,
	// but for query-in-key).
	key, lookup string
	subject     string
	// fingerprint identifies the payload up to canonical-JSON equality
	// (byte equality under raw-body-fingerprint).
	fingerprint string
}

// httpError is a client error: the status and the message of the JSON body.
type httpError struct {
	status int
	msg    string
}

// parseCreate validates the headers and body of a create call, as the mode
// says: its fingerprint is of the canonical body (the raw bytes under
// raw-body-fingerprint, the subject alone under partial-fingerprint), and
// its key the header as sent (trimmed under trimmed-keys, with the query
// string under query-in-key).
func parseCreate(w http.ResponseWriter, r *http.Request, b behavior) (createRequest, *httpError) {
	key, herr := singleHeader(r, "Idempotency-Key")
	if herr != nil {
		return createRequest{}, herr
	}
	if b.trimKeys {
		key = strings.TrimSpace(key)
	}
	lookup := key
	if b.queryInKey && r.URL.RawQuery != "" {
		lookup = key + "?" + r.URL.RawQuery
	}
	tenant, herr := singleHeader(r, "X-Tenant")
	if herr != nil {
		return createRequest{}, herr
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return createRequest{}, &httpError{http.StatusRequestEntityTooLarge,
				fmt.Sprintf("body exceeds %d bytes", mbe.Limit)}
		}
		return createRequest{}, &httpError{http.StatusBadRequest, "reading body: " + err.Error()}
	}
	subject, canonical, herr := parsePayload(body)
	if herr != nil {
		return createRequest{}, herr
	}
	switch {
	case b.rawBodyFingerprint:
		canonical = body
	case b.subjectFingerprint:
		canonical = []byte(subject)
	}
	sum := sha256.Sum256(canonical)
	return createRequest{tenant: tenant, key: key, lookup: lookup, subject: subject, fingerprint: hex.EncodeToString(sum[:])}, nil
}

// singleHeader returns the one non-empty value of header name, byte for
// byte. Keys and tenants are stored as PostgreSQL text, which holds only
// valid UTF-8, in an index, which holds only short values.
func singleHeader(r *http.Request, name string) (string, *httpError) {
	vals := r.Header.Values(name)
	switch {
	case len(vals) == 0 || (len(vals) == 1 && vals[0] == ""):
		return "", &httpError{http.StatusBadRequest, "missing " + name + " header"}
	case len(vals) > 1:
		return "", &httpError{http.StatusBadRequest, fmt.Sprintf("%d %s headers; send exactly one", len(vals), name)}
	case !utf8.ValidString(vals[0]):
		return "", &httpError{http.StatusBadRequest, name + " header is not valid UTF-8"}
	case len(vals[0]) > maxIDBytes:
		return "", &httpError{http.StatusBadRequest, fmt.Sprintf("%s header is %d bytes; the limit is %d", name, len(vals[0]), maxIDBytes)}
	}
	return vals[0], nil
}

// parsePayload checks that body is a JSON object with a string "subject"
// (and, when given, a "priority" from 1 to 5 and a "channel" of email or
// sms) and returns its canonical form: decoding and re-encoding drops
// whitespace, resolves string escapes and sorts object keys, and numbers
// are written by value (2, 2.0 and 20e-1 are one number).
func parsePayload(body []byte) (subject string, canonical []byte, herr *httpError) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", nil, &httpError{http.StatusBadRequest, "body is not valid JSON: " + err.Error()}
	}
	if _, err := d.Token(); err != io.EOF {
		return "", nil, &httpError{http.StatusBadRequest, "body has data after the JSON value"}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", nil, &httpError{http.StatusBadRequest, `body must be a JSON object like {"subject": "..."}`}
	}
	subject, ok = obj["subject"].(string)
	if !ok {
		return "", nil, &httpError{http.StatusBadRequest, `body must have a string field "subject"`}
	}
	if strings.ContainsRune(subject, 0) {
		return "", nil, &httpError{http.StatusBadRequest, `"subject" must not contain NUL characters`}
	}
	if p, ok := obj["priority"]; ok {
		n, isNum := p.(json.Number)
		r, valid := new(big.Rat), false
		if isNum {
			_, valid = r.SetString(n.String())
		}
		if !valid || !r.IsInt() || r.Num().Int64() < 1 || r.Num().Int64() > 5 {
			return "", nil, &httpError{http.StatusBadRequest, `"priority" must be a whole number from 1 to 5`}
		}
	}
	if c, ok := obj["channel"]; ok && c != "email" && c != "sms" {
		return "", nil, &httpError{http.StatusBadRequest, `"channel" must be "email" or "sms"`}
	}
	canonical, err := json.Marshal(byValue(v))
	if err != nil {
		// Unreachable: a value decoded from JSON always re-encodes.
		return "", nil, &httpError{http.StatusBadRequest, "body cannot be re-encoded: " + err.Error()}
	}
	return subject, canonical, nil
}

// byValue writes every number by its exact value, so that re-encodings of
// one number fingerprint alike.
func byValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = byValue(e)
		}
	case []any:
		for i, e := range x {
			x[i] = byValue(e)
		}
	case json.Number:
		if r, ok := new(big.Rat).SetString(x.String()); ok {
			if r.IsInt() {
				return json.Number(r.Num().String())
			}
			return json.Number(strings.TrimRight(r.FloatString(400), "0"))
		}
	}
	return v
}
