package effects

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// sentWinners are the winning payloads as the action's calls sent them:
// a field that carries the key or the tenant ("ref-{{key}}") is stored
// filled in, while the payloads are judged with them as written.
func sentWinners(in Input, a model.Action, winners [][]byte) [][]byte {
	c := in.Contract
	if !payloads.Carries(c, "key") && !payloads.Carries(c, "tenant") {
		return winners
	}
	key, tenant := identifiers.SentKey(c, in.NS, a.Key), ""
	if a.Tenant != "" {
		tenant = identifiers.SentTenant(c, in.NS, a.Tenant)
	}
	out := make([][]byte, len(winners))
	for i, w := range winners {
		out[i] = payloads.WithIdentity(w, key, tenant)
	}
	return out
}

// fieldChecks compare a row's fields with the winning payload; with more
// than one possible winner the row must hold one of them, all its fields
// from the same payload, and is reported against the first.
func fieldChecks(e effect.Effect, a model.Action, winners [][]byte, r model.Row) []Finding {
	var first []Finding
	for i, w := range winners {
		vs := fieldsAgainst(e, a, w, r)
		if len(vs) == 0 {
			return nil
		}
		if i == 0 {
			first = vs
		}
	}
	return first
}

// fieldsAgainst compares a row's fields with one payload.
func fieldsAgainst(e effect.Effect, a model.Action, winner []byte, r model.Row) []Finding {
	var vs []Finding
	for _, col := range slices.Sorted(maps.Keys(e.Fields)) {
		// By JSON value: a numeric column's 1250.00 is the payload's 1250.
		stored, set := r.Fields[col]
		if !payloads.StoredEqual(winner, e.Fields[col], stored, !set) {
			want, _ := payloads.Pointer(winner, e.Fields[col])
			shown := strconv.Quote(stored)
			if !set {
				shown = "NULL"
			}
			vs = append(vs, violation(FieldsDiffer, a, fmt.Sprintf("a column of %s differs from the winning payload", e.Table),
				fmt.Sprintf("action %s: %s.%s is %s, the winning payload has %q", a, e.Table, col, shown, want)))
		}
	}
	return vs
}
