package calls

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/idemstress/idemstress/internal/draft"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// ErrCall marks a call of init's that got no answer.
var ErrCall = errors.New("draft: no answer")

// Answer is what the service answered one of init's calls.
type Answer struct {
	Status int
	Body   []byte
	Header http.Header
}

// Send makes one call of the draft: variant v of its payload under the
// tenant and key given, as the run would send it (plainly encoded).
func Send(ctx context.Context, d *draft.Draft, client *http.Client, rules map[string]model.FieldRule, tenant, key string, v int) (Answer, error) {
	return sendAs(ctx, d, client, rules, payloads.Identity{Tenant: tenant, Key: key}, v)
}

// sendAs is Send for an identity that may carry no key (NoKey): the
// headers naming {{key}} and the payload member carrying it are left out.
func sendAs(ctx context.Context, d *draft.Draft, client *http.Client, rules map[string]model.FieldRule, id payloads.Identity, v int) (Answer, error) {
	tenant, key := id.Tenant, id.Key
	if d.URL == "" || d.Payload == nil {
		return Answer{}, fmt.Errorf("draft: no URL or payload to call with")
	}
	u := d.URL
	if i := strings.IndexByte(u, '?'); i >= 0 {
		q := u[i+1:]
		if id.NoKey {
			q = withoutKey(q)
		}
		u = fill(u[:i], url.PathEscape, tenant, key) + "?" + fill(q, url.QueryEscape, tenant, key)
	} else {
		u = fill(u, url.PathEscape, tenant, key)
	}
	c, ct := model.Contract{Payload: d.Payload, Fields: rules}, "application/json"
	body := payloads.Send(c, id, v, 0)
	if d.Body == "form" {
		body, ct = payloads.SendForm(c, id, v, 0), "application/x-www-form-urlencoded"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, cmp.Or(d.Method, "POST"), u, bytes.NewReader(body))
	if err != nil {
		return Answer{}, fmt.Errorf("draft: request: %w", err)
	}
	req.Header.Set("Content-Type", ct)
	for _, h := range d.Headers {
		if id.NoKey && strings.Contains(h.Value, "{{key}}") {
			continue
		}
		req.Header.Set(h.Name, fill(h.Value, func(s string) string { return s }, tenant, key))
	}
	resp, err := client.Do(req)
	if err != nil {
		return Answer{}, fmt.Errorf("%w: %s %s: %w", ErrCall, req.Method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Answer{}, fmt.Errorf("draft: %s %s: reading the answer: %w", req.Method, u, err)
	}
	return Answer{Status: resp.StatusCode, Body: b, Header: resp.Header}, nil
}

// withoutKey is a query without the parameters that carry {{key}}, as a
// run leaves them out of a call planned without a key.
func withoutKey(query string) string {
	var kept []string
	for _, p := range strings.Split(query, "&") {
		if !strings.Contains(p, "{{key}}") {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "&")
}

// keyInPath says whether the key is a segment of the URL's path, so that
// no call can go without it.
func keyInPath(d *draft.Draft) bool {
	path, _, _ := strings.Cut(d.URL, "?")
	return strings.Contains(path, "{{key}}")
}

func fill(s string, esc func(string) string, tenant, key string) string {
	return strings.NewReplacer("{{tenant}}", esc(tenant), "{{key}}", esc(key)).Replace(s)
}

// ModelRules converts the drafted rules to the model's, for rendering the
// variants a run would send.
func ModelRules(d *draft.Draft) map[string]model.FieldRule {
	out := map[string]model.FieldRule{}
	for ptr, r := range d.Rules {
		switch x := r.(type) {
		case string:
			out[ptr] = model.FieldRule{Fixed: x == "fixed"}
		case map[string]any:
			var fr model.FieldRule
			if e, ok := x["enum"].([]any); ok {
				fr.Enum = e
			}
			for kind, dst := range map[string]**model.Range{"int": &fr.Int, "number": &fr.Number} {
				if m, ok := x[kind].(map[string]any); ok {
					*dst = &model.Range{Min: toFloat(m["min"]), Max: toFloat(m["max"])}
				}
			}
			if n, ok := x["max_len"].(uint64); ok {
				fr.MaxLen = int(n)
			}
			out[ptr] = fr
		}
	}
	return out
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case int:
		return float64(x)
	}
	return 0
}
