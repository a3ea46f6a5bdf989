package usable

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// Identifiers the API refused. Real APIs check a key's or a tenant's form
// before anything else (a UUID requestId, a \w+ client token, a DNS-label
// name, a tenant that must exist), so a run whose every call was refused
// may have sent the right request with the wrong identifiers, and a run
// whose shaped keys alone were refused sent keys outside the API's format.
// Both are contract findings that name the value and the field to set,
// never a violation.

// identifierProbe is one way of making a call's identifiers otherwise:
// the field it stands for and the contract that makes them so.
type identifierProbe struct {
	field string // "key_format: uuid"
	c     model.Contract
	what  string // "key", "tenant" or "tag": what changes
}

// identifierProbes are the other formats of the key, then of the
// tenant, then of the tag (when the request carries one), that the
// contract leaves free to try.
func identifierProbes(c model.Contract, tagSent bool) []identifierProbe {
	var out []identifierProbe
	// Nearest to the default first: a DNS label only lower-cases it, a
	// word swaps '-' for '_', and a UUID (which a DNS label's pattern
	// also matches) changes everything.
	formats := []model.IDFormat{model.IDDNSLabel, model.IDWord, model.IDUUID}
	if c.KeyFormat == "" && c.KeyPattern == "" {
		for _, f := range formats {
			p := c
			p.KeyFormat = f
			out = append(out, identifierProbe{field: "key_format: " + string(f), c: p, what: "key"})
		}
	}
	if len(c.Tenants) == 0 && c.TenantFormat == "" && c.TenantPattern == "" {
		for _, f := range formats {
			p := c
			p.TenantFormat = f
			out = append(out, identifierProbe{field: "tenant_format: " + string(f), c: p, what: "tenant"})
		}
	}
	if tagSent && c.TagFormat == "" {
		for _, f := range formats[:2] { // no UUID tag
			p := c
			p.TagFormat = f
			out = append(out, identifierProbe{field: "tag_format: " + string(f), c: p, what: "tag"})
		}
	}
	return out
}

// identifierRefusal is the contract error of a run whose every call was
// refused with a 4xx when the same call with its key (or tenant) in
// another format is taken; nil when none is, or the run cannot ask.
func (pr Probe) identifierRefusal(ctx context.Context) error {
	op := pr.Clues.unusable
	if pr.TryWith == nil || op.Out.Status < 400 || op.Out.Status >= 500 || ctx.Err() != nil {
		return nil
	}
	c := pr.Contract
	call := model.Call{Tenant: op.Call.Tenant, Key: model.PlainKey(op.Call.Key), Variant: op.Call.Variant}
	if call.Key != op.Call.Key {
		// A key of another shape: is the plain key taken as it is?
		ns := model.Namespace(pr.Run + "-probe-")
		if got, err := pr.TryWith(ctx, c, ns, call); err == nil && got.Out.Kind == model.OK {
			return pr.shapeRefused(*op, pr.Clues.unusableNS, "")
		}
	}
	tagSent := pr.HTTP.Sends("tag") || payloads.Carries(c, "tag")
	for i, p := range identifierProbes(c, tagSent) {
		ns := model.Namespace(fmt.Sprintf("%s-probe%d-", pr.Run, i))
		got, err := pr.TryWith(ctx, p.c, ns, call)
		if err != nil || got.Out.Kind != model.OK {
			continue
		}
		var sent, took, also string
		switch p.what {
		case "key":
			sent, took = identifiers.SentKey(c, pr.Clues.unusableNS, op.Call.Key), identifiers.SentKey(p.c, ns, call.Key)
			also = "or give key_pattern, the keys the API takes"
		case "tenant":
			sent, took = identifiers.SentTenant(c, pr.Clues.unusableNS, op.Call.Tenant), identifiers.SentTenant(p.c, ns, call.Tenant)
			also = "or list the tenants that exist under tenants:"
		default:
			sent, took = identifiers.Tag(pr.Clues.unusableNS, c, op.Call), identifiers.Tag(ns, p.c, call)
			also = "the alphabet of the field {{tag}} stands in"
		}
		return fmt.Errorf("%w: %s: the service refused every %s idemstress sent (the first, %q, was answered %d %s) and took the same call with the %s %q: set %s (%s; see docs/contract.md, \"Identifiers the API constrains\")",
			contract.ErrContract, fieldName(p.field), p.what, sent, op.Out.Status, model.Excerpt(bytes.TrimSpace(op.Out.Body), 200), p.what, took, p.field, also)
	}
	return nil
}

// identifierHint names, for a run whose every call was refused, the key
// and the tenant it sent and the fields that would change them.
func (pr Probe) identifierHint() string {
	op, c := pr.Clues.unusable, pr.Contract
	return fmt.Sprintf("; if the API constrains identifiers, the key sent was %q and the tenant %q: say the key's form with key_format or key_pattern, "+
		"and the tenants with tenants: (values that exist) or tenant_format (see docs/contract.md, \"Identifiers the API constrains\")",
		identifiers.SentKey(c, pr.Clues.unusableNS, op.Call.Key), identifiers.SentTenant(c, pr.Clues.unusableNS, op.Call.Tenant))
}

// fieldName is the contract field of "key_format: uuid".
func fieldName(setting string) string {
	name, _, _ := strings.Cut(setting, ":")
	return name
}

// keyShapeRefusal is the contract error of a run in which the service
// refused a key of another shape (white space, case, non-ASCII, long)
// although it took plain keys: the API's keys have a format the contract
// does not say. nil when the shaped key alone is taken (the refusal was of
// something else the call changed).
func (pr Probe) keyShapeRefusal(ctx context.Context, op model.Op, also string) error {
	shape := identifiers.KeyShape(op.Call.Key)
	if shape == 0 || op.Call.NoKey {
		return nil
	}
	alone := model.Call{Tenant: op.Call.Tenant, Key: op.Call.Key}
	if pr.accepts(ctx, alone) {
		return nil
	}
	return pr.shapeRefused(op, pr.Clues.refusedNS, also)
}

// shapeRefused is the contract error for op, a call of namespace ns whose
// key of another shape was refused where plain keys are taken.
func (pr Probe) shapeRefused(op model.Op, ns model.Namespace, also string) error {
	shape := identifiers.KeyShape(op.Call.Key)
	sent := identifiers.SentKey(pr.Contract, ns, op.Call.Key)
	return fmt.Errorf("%w: key_format: the service refused the key %q (%s: %s key shape) and takes plain keys: it answered %d %s. "+
		"If the API takes only keys of some form, say which with key_format (uuid, word, dns-label) or key_pattern, and only key shapes inside it are drawn "+
		"(coverage then says which are not exercised); if it should take this key, it has a bug%s",
		contract.ErrContract, sent, model.Action{Tenant: op.Call.Tenant, Key: op.Call.Key}, identifiers.ShapeName(shape),
		op.Out.Status, model.Excerpt(bytes.TrimSpace(op.Out.Body), 200), also)
}
