package paysvc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// maxBodyBytes bounds a request body; a payment is a few hundred bytes.
	maxBodyBytes = 64 << 10
	// maxIDBytes bounds a key or merchant: both go into one unique index
	// entry, which PostgreSQL caps at about 2.7 kB. 255 is idemstress's
	// default key_max_len.
	maxIDBytes = 255
	// minAmount and maxAmount bound amount_money.amount, in the currency's
	// smallest unit.
	minAmount, maxAmount = 1, 100_000_000
	// maxSourceID and maxNote bound those fields, in characters.
	maxSourceID, maxNote = 192, 500
)

// currencies are the currencies amount_money.currency may name.
var currencies = []string{"AUD", "CAD", "EUR", "GBP", "JPY", "USD"}

// createBody is the JSON body of a create call, decoded strictly: an
// unknown field, or a number that is not an int64 (1250.0), is refused.
// Pointers tell a field left out from a zero.
type createBody struct {
	IdempotencyKey *string `json:"idempotency_key"`
	AmountMoney    *money  `json:"amount_money"`
	SourceID       string  `json:"source_id"`
	Note           string  `json:"note"`
}

type money struct {
	Amount   *int64 `json:"amount"`
	Currency string `json:"currency"`
}

// createRequest is a validated create call.
type createRequest struct {
	merchant, key string
	amount        int64
	currency      string
	sourceID      string
	note          string
	// fingerprint identifies the request without its key, up to
	// canonical-JSON equality: key order, whitespace and string escapes
	// do not count.
	fingerprint string
}

// apiError is an error answer: its status and its one entry of "errors".
type apiError struct {
	status int
	entry  errorEntry
}

func invalid(code, field, detail string) *apiError {
	return &apiError{http.StatusBadRequest, errorEntry{Category: "INVALID_REQUEST_ERROR", Code: code, Field: field, Detail: detail}}
}

// parseCreate reads and validates a create call to merchant. keyHeader is
// where the key travels: "" for the body's idempotency_key, else that
// header (and the body must then have no idempotency_key).
func parseCreate(w http.ResponseWriter, r *http.Request, merchant, keyHeader string) (createRequest, *apiError) {
	if herr := checkID("merchant", merchant); herr != nil {
		return createRequest{}, herr
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return createRequest{}, &apiError{http.StatusRequestEntityTooLarge,
				errorEntry{Category: "INVALID_REQUEST_ERROR", Code: "BAD_REQUEST", Detail: fmt.Sprintf("the body exceeds %d bytes", mbe.Limit)}}
		}
		return createRequest{}, invalid("BAD_REQUEST", "", "reading the body: "+err.Error())
	}
	if !utf8.Valid(raw) {
		// encoding/json would decode invalid bytes as U+FFFD, so two keys
		// that differ there would be one.
		return createRequest{}, invalid("BAD_REQUEST", "", "the body is not valid UTF-8")
	}
	var body createBody
	if herr := decodeStrict(raw, &body); herr != nil {
		return createRequest{}, herr
	}
	key, herr := requestKey(r, body, keyHeader)
	if herr != nil {
		return createRequest{}, herr
	}
	req := createRequest{merchant: merchant, key: key, sourceID: body.SourceID, note: body.Note}
	if herr := validate(body, &req); herr != nil {
		return createRequest{}, herr
	}
	if req.fingerprint, herr = fingerprint(raw); herr != nil {
		return createRequest{}, herr
	}
	return req, nil
}

// decodeStrict decodes exactly one JSON object into v, refusing unknown
// fields and values of the wrong type.
func decodeStrict(raw []byte, v *createBody) *apiError {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	err := d.Decode(v)
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return invalid("BAD_REQUEST", "", `the body must be a JSON object like {"idempotency_key": "...", "amount_money": {...}, "source_id": "..."}`)
		}
		return invalid("INVALID_VALUE", field, fmt.Sprintf("%s must be %s, not the JSON %s", field, typeName(typeErr), typeErr.Value))
	case err != nil && strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return invalid("BAD_REQUEST", strings.Trim(name, `"`), "the body has the unknown field "+name)
	case err != nil:
		return invalid("BAD_REQUEST", "", "the body is not valid JSON: "+err.Error())
	}
	if _, err := d.Token(); err != io.EOF {
		return invalid("BAD_REQUEST", "", "the body has data after its JSON object")
	}
	return nil
}

// typeName says what a field's Go type takes, in the API's words.
func typeName(e *json.UnmarshalTypeError) string {
	switch e.Type.String() {
	case "int64":
		return "a whole number (no fraction or exponent)"
	case "string":
		return "a string"
	}
	return "an object"
}

// requestKey returns the call's idempotency key, from the body or from
// keyHeader.
func requestKey(r *http.Request, body createBody, keyHeader string) (string, *apiError) {
	if keyHeader == "" {
		if body.IdempotencyKey == nil || *body.IdempotencyKey == "" {
			return "", invalid("MISSING_REQUIRED_PARAMETER", "idempotency_key", "idempotency_key is required: a unique string per payment, the same on every retry")
		}
		return *body.IdempotencyKey, checkID("idempotency_key", *body.IdempotencyKey)
	}
	if body.IdempotencyKey != nil {
		return "", invalid("BAD_REQUEST", "idempotency_key", "the idempotency key travels in the "+keyHeader+" header on this service, not in the body")
	}
	vals := r.Header.Values(keyHeader)
	switch {
	case len(vals) == 0 || (len(vals) == 1 && vals[0] == ""):
		return "", invalid("MISSING_REQUIRED_PARAMETER", keyHeader, "the "+keyHeader+" header is required: a unique string per payment, the same on every retry")
	case len(vals) > 1:
		return "", invalid("BAD_REQUEST", keyHeader, fmt.Sprintf("%d %s headers; send exactly one", len(vals), keyHeader))
	}
	return vals[0], checkID(keyHeader, vals[0])
}

// checkID refuses a key or merchant that PostgreSQL's text cannot hold
// (invalid UTF-8, NUL) or that is too long for the unique index.
func checkID(field, v string) *apiError {
	switch {
	case !utf8.ValidString(v) || strings.ContainsRune(v, 0):
		return invalid("INVALID_VALUE", field, field+" must be valid UTF-8 without NUL characters")
	case len(v) > maxIDBytes:
		return invalid("INVALID_VALUE", field, fmt.Sprintf("%s is %d bytes; the limit is %d", field, len(v), maxIDBytes))
	}
	return nil
}

// validate checks the fields' values and copies them into req.
func validate(body createBody, req *createRequest) *apiError {
	m := body.AmountMoney
	switch {
	case m == nil:
		return invalid("MISSING_REQUIRED_PARAMETER", "amount_money", "amount_money is required")
	case m.Amount == nil:
		return invalid("MISSING_REQUIRED_PARAMETER", "amount_money.amount", "amount_money.amount is required")
	case *m.Amount < minAmount || *m.Amount > maxAmount:
		return invalid("INVALID_VALUE", "amount_money.amount", fmt.Sprintf("amount_money.amount must be from %d to %d, not %d", minAmount, maxAmount, *m.Amount))
	case m.Currency == "":
		return invalid("MISSING_REQUIRED_PARAMETER", "amount_money.currency", "amount_money.currency is required")
	case !slices.Contains(currencies, m.Currency):
		return invalid("INVALID_VALUE", "amount_money.currency", fmt.Sprintf("amount_money.currency must be one of %s, not %q", strings.Join(currencies, ", "), m.Currency))
	case body.SourceID == "":
		return invalid("MISSING_REQUIRED_PARAMETER", "source_id", "source_id is required")
	}
	if herr := checkText("source_id", body.SourceID, maxSourceID); herr != nil {
		return herr
	}
	if herr := checkText("note", body.Note, maxNote); herr != nil {
		return herr
	}
	req.amount, req.currency = *m.Amount, m.Currency
	return nil
}

func checkText(field, v string, maxChars int) *apiError {
	if strings.ContainsRune(v, 0) {
		return invalid("INVALID_VALUE", field, field+" must not contain NUL characters")
	}
	if n := utf8.RuneCountInString(v); n > maxChars {
		return invalid("INVALID_VALUE", field, fmt.Sprintf("%s is %d characters; the limit is %d", field, n, maxChars))
	}
	return nil
}

// fingerprint hashes the canonical JSON of the body without its
// idempotency_key: decoding and re-encoding drops whitespace, resolves
// string escapes and sorts object keys, and the one number, the amount, is
// written by its value. Two calls whose bodies differ only so are one
// request; a retry that changes any value is another.
func fingerprint(raw []byte) (string, *apiError) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		// Unreachable: decodeStrict has read the same bytes.
		return "", invalid("BAD_REQUEST", "", "the body is not a JSON object: "+err.Error())
	}
	delete(v, "idempotency_key")
	if m, ok := v["amount_money"].(map[string]any); ok {
		if n, ok := m["amount"].(json.Number); ok {
			i, err := strconv.ParseInt(n.String(), 10, 64)
			if err != nil {
				return "", invalid("INVALID_VALUE", "amount_money.amount", "amount_money.amount must be a whole number: "+err.Error())
			}
			m["amount"] = i
		}
	}
	canonical, err := json.Marshal(v)
	if err != nil {
		// Unreachable: a value decoded from JSON always re-encodes.
		return "", invalid("BAD_REQUEST", "", "the body cannot be re-encoded: "+err.Error())
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), nil
}
