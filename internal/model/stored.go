package model

import (
	"bytes"
	"encoding/json"
	"errors"
)

// StoredEqual reports whether a column's value, read as text (null: the
// column is NULL), holds the JSON value at ptr in doc: by value, not by
// text. A number matches whatever text writes the same number (1250.00 in
// a numeric column is the payload's 1250, 2 is 2.0), a string its text
// (or a JSON string of it), a boolean true or false, null a NULL, an
// object or array a JSON column with the same members. A pointer into
// nothing matches NULL or an empty column.
func StoredEqual(doc []byte, ptr, stored string, null bool) bool {
	var v any
	if decodeNumbers(doc, &v) != nil {
		return false
	}
	want, ok := resolve(v, ptr)
	switch {
	case !ok:
		return null || stored == ""
	case null:
		return want == nil
	}
	if s, isString := want.(string); isString && s == stored {
		return true
	}
	var got any
	if decodeNumbers([]byte(stored), &got) != nil {
		return false
	}
	a, errA := json.Marshal(canonicalNumbers(want))
	b, errB := json.Marshal(canonicalNumbers(got))
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// decodeNumbers decodes one JSON document into v, numbers as json.Number.
func decodeNumbers(doc []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errTrailing
	}
	return nil
}

var errTrailing = errors.New("data after the JSON value")
