package payloads

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
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

// WithIdentity is payload doc with {{key}} and {{tenant}} in its strings
// filled in with key and tenant (a tenant "" leaves {{tenant}}): the
// values a service given the call stores in a field that carries them
// ("subject": "ref-{{key}}"). A doc that does not decode is returned as
// it is.
func WithIdentity(doc []byte, key, tenant string) []byte {
	var v any
	if !bytes.Contains(doc, []byte("{")) || decodeNumbers(doc, &v) != nil {
		return doc
	}
	r := strings.NewReplacer("{{key}}", key)
	if tenant != "" {
		r = strings.NewReplacer("{{key}}", key, "{{tenant}}", tenant)
	}
	var fill func(v any) any
	fill = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = fill(e)
			}
		case []any:
			for i, e := range x {
				x[i] = fill(e)
			}
		case string:
			return r.Replace(x)
		}
		return v
	}
	out, err := json.Marshal(fill(v))
	if err != nil {
		return doc
	}
	return out
}
