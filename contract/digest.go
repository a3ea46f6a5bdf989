package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// Digest is "sha256:" and the hex SHA-256 of the canonical JSON of what
// the contract promises and how it is checked: the contract with its
// defaults (statuses, payload, payload rules, equivalence, key scope, key
// comparison and length, server errors, recovery), key_required, the
// request noise that may be added (every kind but identity_noise), the
// method, header templates and path of target.url (not its scheme, host
// or port, which move between machines and runs), the ID pointer, the
// effects, and the sinks' promises (where a contract declares sinks). How
// a run hunts (database, process, replicas, sync, db-stall, timeouts, a
// sink's address, faults and quiet) is left out: it changes where and how
// hard, not what a case means. A regression case file records it
// (contract_digest), and a replay under a Spec of another digest warns.
//
// The bytes are those every case file written so far holds: a field the
// Spec gains changes the digest only where it is set (omitempty, as
// Sinks are).
func (s Spec) Digest() string {
	path := s.HTTP.URL
	if u, err := url.Parse(s.HTTP.URL); err == nil {
		path = u.EscapedPath()
		if u.RawQuery != "" {
			path += "?" + u.RawQuery
		}
	}
	method := strings.ToUpper(s.HTTP.Method)
	if method == "" {
		method = "POST"
	}
	// KeyRequired is key_required as the file says it, not KeyRequired(),
	// which a key in the path turns off: the bytes case files hold.
	canonical := struct {
		Method      string
		Path        string
		Headers     map[string]string
		ID          string
		Contract    model.Contract
		KeyRequired bool
		Noise       []model.Noise
		Effects     any
		// Sinks are left out when there are none, so that the digest of
		// a contract without sinks is what it was before they existed.
		Sinks []effect.Sink `json:",omitempty"`
	}{method, path, s.HTTP.Headers, s.HTTP.ID, s.Contract.WithDefaults(), !s.Contract.KeylessCreates, s.addedNoise(), s.Effects, sinkPromises(s.Sinks)}
	b, err := json.Marshal(canonical)
	if err != nil {
		// Only a payload that is not JSON could get here, and Load refuses it.
		b = fmt.Appendf(nil, "%#v", canonical)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// addedNoise is the request noise a call may carry without becoming
// another action: every kind but the contract's identity_noise, in order
// (never nil: the digest holds [] where every kind is identity).
func (s Spec) addedNoise() []model.Noise {
	noise := []model.Noise{}
	for n := model.NoiseNone + 1; n < model.NumNoise; n++ {
		if !slices.Contains(s.IdentityNoise, n) {
			noise = append(noise, n)
		}
	}
	return noise
}

// sinkPromises are the sinks as the digest sees them: what each promises
// (attribution, per_action, fields, delivery, event_id, delivery_within
// with its default), without its address, faults, slow answer and quiet.
func sinkPromises(sinks []effect.Sink) []effect.Sink {
	var out []effect.Sink
	for _, s := range sinks {
		s.Addr, s.Faults, s.Slow, s.Quiet = "", nil, 0, 0
		s.Delivery, s.DeliveryWithin, s.PerAction = s.Mode(), s.Within(), s.EventsPerAction()
		out = append(out, s)
	}
	return out
}
