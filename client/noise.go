package client

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemstress/idemstress/internal/model"
)

// noiseNames are the query parameter and headers request noise sets: none
// the template uses. On a service whose key header is X-Request-Id, tracing
// noise that set X-Request-Id would send a retry with another key, and a
// keyless call with a key.
type noiseNames struct {
	param   string
	headers []string
}

// namesFor picks the noise names for a template: trace (or trace_, …) for
// the query, and of Traceparent and X-Request-Id those the template's
// headers do not name in any case. u is the template's URL with its
// placeholders filled.
func namesFor(spec HTTPSpec, u *url.URL) noiseNames {
	n := noiseNames{param: "trace"}
	for u.Query().Has(n.param) {
		n.param += "_"
	}
	for _, name := range []string{"Traceparent", "X-Request-Id"} {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(spec.Headers)), func(h string) bool { return strings.EqualFold(h, name) }) {
			n.headers = append(n.headers, name)
		}
	}
	return n
}

// add adds what a real client's retry adds without meaning another action:
// a query parameter, tracing headers, header names in another case. A
// service must not fold any of it into the action's identity. The
// template's own query stays as written: the parameter is appended.
func (n noiseNames) add(hr *http.Request, noise model.Noise) {
	switch noise {
	case model.NoiseQuery:
		p := n.param + "=" + strconv.FormatInt(time.Now().UnixNano()%1e6, 36)
		if hr.URL.RawQuery == "" {
			hr.URL.RawQuery = p
		} else {
			hr.URL.RawQuery += "&" + p
		}
	case model.NoiseTrace:
		id := fmt.Sprintf("%032x", time.Now().UnixNano())
		for _, name := range n.headers {
			switch name {
			case "Traceparent":
				hr.Header.Set(name, "00-"+id+"-"+id[16:]+"-01")
			default:
				hr.Header.Set(name, id[20:])
			}
		}
	case model.NoiseHeaderCase:
		// net/http writes header names as the map holds them.
		for name, vals := range hr.Header {
			delete(hr.Header, name)
			hr.Header[strings.ToLower(name)] = vals
		}
	}
}
