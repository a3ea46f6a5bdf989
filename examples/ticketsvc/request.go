package ticketsvc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	tenant  string
	key     string
	subject string
	// fingerprint identifies the payload up to canonical-JSON equality
	// (byte equality under raw-body-fingerprint).
	fingerprint string
}

// httpError is a client error: the status and the message of the JSON body.
type httpError struct {
	status int
	msg    string
}

// parseCreate validates the headers and body of a create call. With
// rawFingerprint set it fingerprints the body as sent, not its canonical form.
func parseCreate(w http.ResponseWriter, r *http.Request, rawFingerprint bool) (createRequest, *httpError) {
	key, herr := singleHeader(r, "Idempotency-Key")
	if herr != nil {
		return createRequest{}, herr
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
	if rawFingerprint {
		canonical = body
	}
	sum := sha256.Sum256(canonical)
	return createRequest{tenant: tenant, key: key, subject: subject, fingerprint: hex.EncodeToString(sum[:])}, nil
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

// parsePayload checks that body is a JSON object with a string "subject" and
// returns its canonical form: decoding and re-encoding drops whitespace,
// resolves string escapes and sorts object keys. Numbers stay as written
// (1.0 is not 1), as in idemstress's model.Canonical.
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
	canonical, err := json.Marshal(v)
	if err != nil {
		// Unreachable: a value decoded from JSON always re-encodes.
		return "", nil, &httpError{http.StatusBadRequest, "body cannot be re-encoded: " + err.Error()}
	}
	return subject, canonical, nil
}
