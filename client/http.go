package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/idemstress/idemstress/internal/httpbound"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// HTTPSpec is the request template of an HTTP target. {{tenant}}, {{key}}
// and {{tag}} may stand in the URL and in header values; the body is the
// call's payload (where they may stand too, see payloads.Send).
type HTTPSpec struct {
	URL     string            `yaml:"url" json:"url"`
	Method  string            `yaml:"method" json:"method"`
	Headers map[string]string `yaml:"headers" json:"headers"`
	// Body is how the payload is sent: bodyJSON (default) or BodyForm.
	Body string `yaml:"body" json:"body,omitempty"`
	// ID says where the resource ID is in an ok answer: a JSON pointer into
	// the body ("/ticket_id"), or "location" for the last path segment of
	// the Location header.
	ID string `yaml:"id" json:"id"`
	// Timeout bounds one call; a call without an answer by then is unknown.
	Timeout time.Duration `yaml:"timeout" json:"timeout"`
}

// The body formats of HTTPSpec.Body.
const (
	bodyJSON = "json"
	// BodyForm sends the payload as application/x-www-form-urlencoded
	// (Stripe), model.Contract.SendForm.
	BodyForm = "form"
)

// IDFromLocation is the HTTPSpec.ID that reads the ID from the Location header.
const IDFromLocation = "location"

// maxBody bounds how much of an answer's body is read.
const maxBody = 64 << 10

// DefaultTimeout bounds one call when the contract gives no timeout.
const DefaultTimeout = 10 * time.Second

var placeholder = regexp.MustCompile(`\{\{\s*([a-zA-Z_]*)\s*\}\}`)

// HTTP is a target reached over HTTP/1.1.
type HTTP struct {
	spec   HTTPSpec
	client *http.Client
	// urls are spec.URL with the host:port of each replica (WithHosts);
	// empty: spec.URL for every call.
	urls []string
	// sync is how bursts are released ("": LastByte).
	sync SyncMode
	// noise is what request noise may add without touching the template.
	noise noiseNames
	// keep holds the connections of past bursts for the next ones; the
	// copies WithHosts and WithSync make share it.
	keep *warm
}

// CheckHost refuses a URL template with a placeholder ({{tenant}},
// {{key}}, {{tag}}) in its host: every tenant name or key would become a
// DNS look-up, sent to whoever serves the domain. Placeholders belong in
// the path, the query, the headers or the body.
func CheckHost(rawURL string) error {
	rest := rawURL
	if _, after, ok := strings.Cut(rest, "://"); ok {
		rest = after
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if m := placeholder.FindString(rest); m != "" {
		return fmt.Errorf("target.url %q: %s in the host: every value would be looked up in DNS; put it in the path, the query or a header", rawURL, m)
	}
	return nil
}

// NewHTTP checks the template and returns a target that sends through client
// (nil: a client of its own with keep-alive connections).
func NewHTTP(spec HTTPSpec, client *http.Client) (*HTTP, error) {
	if spec.Method == "" {
		spec.Method = http.MethodPost
	}
	if spec.Timeout <= 0 {
		spec.Timeout = DefaultTimeout
	}
	// {port} stands for the replica's port where idemstress starts the
	// service (WithHosts puts each replica's host:port there).
	u, err := url.Parse(strings.ReplaceAll(placeholder.ReplaceAllString(spec.URL, "x"), "{port}", "1"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("target.url %q: want an absolute http:// or https:// URL", spec.URL)
	}
	if err := CheckHost(spec.URL); err != nil {
		return nil, err
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("target.url %q: port %s: want 1 to 65535", spec.URL, p)
		}
	}
	if spec.Body != "" && spec.Body != bodyJSON && spec.Body != BodyForm {
		return nil, fmt.Errorf("target.body %q: want %q (the default) or %q (application/x-www-form-urlencoded)", spec.Body, bodyJSON, BodyForm)
	}
	if spec.ID != IDFromLocation && !strings.HasPrefix(spec.ID, "/") {
		return nil, fmt.Errorf("target.id %q: want a JSON pointer such as /id, or %q", spec.ID, IDFromLocation)
	}
	if err := checkSendable(spec); err != nil {
		return nil, err
	}
	fields := map[string]string{"target.url": spec.URL}
	for name, v := range spec.Headers {
		fields["target.headers."+name] = v
	}
	for field, v := range fields {
		for _, m := range placeholder.FindAllStringSubmatch(v, -1) {
			if m[1] != "tenant" && m[1] != "key" && m[1] != "tag" {
				return nil, fmt.Errorf("%s: unknown placeholder %s (known: {{tenant}}, {{key}}, {{tag}})", field, m[0])
			}
		}
	}
	if client == nil {
		client = &http.Client{
			Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxResponseHeaderBytes: httpbound.MaxHeader},
			// The answer to the call is what is judged, not the page it points to.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return &HTTP{spec: spec, client: client, noise: namesFor(spec, u), keep: &warm{}}, nil
}

// CloseIdleConnections closes the keep-alive connections the target holds,
// so that nothing of it outlives a run.
func (h *HTTP) CloseIdleConnections() {
	h.client.CloseIdleConnections()
	h.keep.closeAll()
}

// Spec is the template the target was made from, with defaults filled in.
func (h *HTTP) Spec() HTTPSpec { return h.spec }

// render fills the placeholders of a template with req's values, escaped;
// an unknown name is filled with the escape of "". The text between them
// stays as written.
func render(tmpl string, req Request, escape func(string) string) string {
	if !strings.Contains(tmpl, "{{") {
		return tmpl // most header values and URLs: no match to look for
	}
	var b strings.Builder
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(tmpl, -1) {
		var v string
		switch tmpl[m[2]:m[3]] {
		case "tenant":
			v = req.Tenant
		case "key":
			v = req.Key
		case "tag":
			v = req.Tag
		}
		b.WriteString(tmpl[last:m[0]])
		b.WriteString(escape(v))
		last = m[1]
	}
	b.WriteString(tmpl[last:])
	return b.String()
}

// asIs is render's escape for header values: none.
func asIs(s string) string { return s }

// renderURL fills a URL template: placeholders path-escaped in the path
// and query-escaped in the query (a key with & or + in it stays one
// value), and for a call without its key the query parameters that carry
// {{key}} left out, as a client with no key sends none.
func renderURL(tmpl string, req Request) string {
	path, query, ok := strings.Cut(tmpl, "?")
	path = render(path, req, url.PathEscape)
	if !ok {
		return path
	}
	var params []string
	for _, p := range strings.Split(query, "&") {
		if req.NoKey && usesKey(p) {
			continue
		}
		params = append(params, render(p, req, url.QueryEscape))
	}
	return path + "?" + strings.Join(params, "&")
}

// Sends reports whether calls carry the placeholder name ("key",
// "tenant", "tag") anywhere: in the URL or in a header.
func (s HTTPSpec) Sends(name string) bool {
	if uses(s.URL, name) {
		return true
	}
	for _, v := range s.Headers {
		if uses(v, name) {
			return true
		}
	}
	return false
}

// KeyValues are the values of the template that may carry {{key}}, for
// model.KeyTemplateOf: the header values by header name, then the URL's
// path segments, then its query parameters' values.
func (s HTTPSpec) KeyValues() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(s.Headers)) {
		out = append(out, s.Headers[name])
	}
	path, query, _ := strings.Cut(s.URL, "?")
	out = append(out, strings.Split(path, "/")...)
	for _, p := range strings.Split(query, "&") {
		_, v, _ := strings.Cut(p, "=")
		out = append(out, v)
	}
	return out
}

// KeyInPath reports whether the URL's path carries {{key}}
// (/tickets/{{key}}): a call without its key cannot be sent there, as
// a path with an empty segment is another resource, not a keyless call.
func (s HTTPSpec) KeyInPath() bool {
	path, _, _ := strings.Cut(s.URL, "?")
	return usesKey(path)
}

// uses reports whether a template holds the placeholder, however spaced.
func uses(tmpl, name string) bool {
	for _, m := range placeholder.FindAllStringSubmatch(tmpl, -1) {
		if m[1] == name {
			return true
		}
	}
	return false
}

// usesKey reports whether a template holds {{key}}, however spaced.
func usesKey(tmpl string) bool { return uses(tmpl, "key") }

// WithHosts returns a copy of the target that sends each call to one of
// addrs ("host:port"): call req.Replica modulo len(addrs). Only the host:port
// of the URL template changes; its scheme, path and query stay. The copy
// shares the target's client. With no addrs, calls go where the template says.
func (h *HTTP) WithHosts(addrs []string) *HTTP {
	c := *h
	c.urls = nil
	for _, addr := range addrs {
		c.urls = append(c.urls, withHost(h.spec.URL, addr))
	}
	return &c
}

// Hosts is the host:port each call goes to, one per replica (WithHosts),
// or the template's own when calls are not spread.
func (h *HTTP) Hosts() []string {
	urls := h.urls
	if len(urls) == 0 {
		urls = []string{h.spec.URL}
	}
	hosts := make([]string, len(urls))
	for i, u := range urls {
		start, end := hostSpan(u)
		hosts[i] = u[start:end]
	}
	return hosts
}

// withHost replaces the host:port of an absolute URL template, keeping any
// userinfo. It works on the template's text, not a parsed URL, so that
// placeholders and escapes in the path stay exactly as written.
func withHost(tmpl, addr string) string {
	start, end := hostSpan(tmpl)
	return tmpl[:start] + addr + tmpl[end:]
}

// hostSpan is where the host:port of an absolute URL template is, after
// any userinfo.
func hostSpan(tmpl string) (start, end int) {
	start = strings.Index(tmpl, "://") + len("://")
	end = len(tmpl)
	if i := strings.IndexAny(tmpl[start:], "/?#"); i >= 0 {
		end = start + i
	}
	if at := strings.LastIndex(tmpl[start:end], "@"); at >= 0 {
		start += at + 1
	}
	return start, end
}

// NewRequest builds the HTTP request that Do sends for req, headers and body
// included, bound to ctx (Do adds the spec's timeout; a caller sending it
// itself bounds it itself).
func (h *HTTP) NewRequest(ctx context.Context, req Request) (*http.Request, error) {
	tmpl := h.spec.URL
	if n := len(h.urls); n > 0 {
		tmpl = h.urls[(req.Replica%n+n)%n]
	}
	hr, err := http.NewRequestWithContext(ctx, h.spec.Method, renderURL(tmpl, req), bytes.NewReader(req.Body))
	if err != nil {
		return nil, fmt.Errorf("client: building request: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if h.spec.Body == BodyForm {
		hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for name, v := range h.spec.Headers {
		if req.NoKey && usesKey(v) {
			continue
		}
		hr.Header.Set(name, render(v, req, asIs))
	}
	for name, v := range req.Extra {
		hr.Header.Set(name, v)
	}
	h.noise.add(hr, req.Noise)
	return hr, nil
}

// ParseResponse is the Response for an answer whose body starts with body
// (Do reads at most 64 KiB of it): the status, and the resource ID from
// where the spec says, whatever the status: the contract's answer matchers
// say which answers carry one (a replay may be a 409 with the ID).
func (h *HTTP) ParseResponse(resp *http.Response, body []byte) Response {
	return Response{Status: resp.StatusCode, Body: body, ID: h.id(resp, body)}
}

// Do sends one call and reads its answer.
func (h *HTTP) Do(ctx context.Context, req Request) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, h.spec.Timeout)
	defer cancel()
	hr, err := h.NewRequest(ctx, req)
	if err != nil {
		return Response{}, err
	}
	// net/http counts a request with an Idempotency-Key header as safe to
	// send again, and would silently resend it on a dead keep-alive
	// connection: a duplicate the history would never show. Without
	// GetBody it cannot.
	hr.GetBody = nil
	resp, err := h.client.Do(hr)
	if err != nil {
		return Response{}, classify(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return Response{}, fmt.Errorf("client: reading answer: %w", err)
	}
	return h.ParseResponse(resp, body), nil
}

func (h *HTTP) id(resp *http.Response, body []byte) string {
	if h.spec.ID == IDFromLocation {
		loc := resp.Header.Get("Location")
		if loc == "" {
			return ""
		}
		if u, err := url.Parse(loc); err == nil {
			loc = u.Path
		}
		id := path.Base(strings.TrimRight(loc, "/"))
		if id == "." { // no path segment at all
			return ""
		}
		return id
	}
	id, ok := payloads.IDPointer(body, h.spec.ID)
	if !ok {
		return ""
	}
	return id
}

// classify marks the errors that say the target cannot be talked to at
// all, whatever the call: nothing listens, no such host or route, or TLS
// that cannot work. They stop the run as an infrastructure failure; a
// call that hangs or is cut off on a reachable service stays a call
// without an answer (IDEM-014, or unknown under a fault).
func classify(err error) error {
	var (
		dnsErr  *net.DNSError
		record  tls.RecordHeaderError
		verify  *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
	)
	switch {
	case errors.Is(err, http.ErrSchemeMismatch), errors.As(err, &record):
		return fmt.Errorf("%w: %v (target.url says https:// but the service speaks plain HTTP: write http://)", ErrUnreachable, err)
	case errors.As(err, &verify), errors.As(err, &unknown), errors.As(err, &host):
		return fmt.Errorf("%w: %v (the service's TLS certificate is not trusted here)", ErrUnreachable, err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH), errors.As(err, &dnsErr):
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	return err
}
