package checks_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// sampleEffects are the effect tables of examples/ticketsvc.
func sampleEffects() []effect.Effect {
	return []effect.Effect{
		{Table: "tickets", Tenant: "tenant", Key: "request_key", ID: "id", PerAction: 1,
			Fields: map[string]string{"subject": "/subject"}},
		{Table: "notification_outbox", Tenant: "tenant", Key: "request_key", PerAction: 1,
			References: &effect.Reference{Column: "ticket_id", Table: "tickets"}},
	}
}

// world names what a scenario is made of, so that the same scenario can be
// replayed with another namespace, other tenants, keys and IDs.
type world struct {
	ns       model.Namespace
	a, b     string // logical tenants
	k1, k2   string // logical keys
	id1, id2 string // resource IDs
}

var (
	plain = world{ns: "ns1-", a: "A", b: "B", k1: "k1", k2: "k2", id1: "7", id2: "8"}
	// odd uses names that no message can contain by accident.
	odd = world{ns: "run9x-42-", a: "tenQx", b: "tenRy", k1: "keyZ1", k2: "keyZ2", id1: "900001", id2: "900002"}
)

// A scenario is what Evaluate judges: the history and the committed rows.
type scenario struct {
	h    model.History
	rows model.Snapshot
}

// either picks what the bad case has, or what the good case has instead;
// a case's two halves differ exactly where it is used.
func either[T any](bad bool, ifBad, ifGood T) T {
	if bad {
		return ifBad
	}
	return ifGood
}

func call(tenant, key string, variant int) model.Call {
	return model.Call{Tenant: tenant, Key: key, Variant: variant}
}

func keyless(tenant string) model.Call { return model.Call{Tenant: tenant, NoKey: true} }

func encoded(c model.Call, encoding int) model.Call { c.Encoding = encoding; return c }

// faulty plans a lost reply for the call.
func faulty(c model.Call) model.Call { c.Fault = "lose-reply"; return c }

// broken makes the call break a payload rule (the first breakage).
func broken(c model.Call) model.Call { c.Broken = 1; return c }

// dbError plans a transient database failure for the call.
func dbError(c model.Call) model.Call { c.Fault = model.FaultDBError; return c }

// serverError is the sample's answer to a call whose database work failed.
func serverError() model.Outcome {
	return model.Outcome{Kind: model.Unknown, Status: 500, Body: model.Body(`{"error":"internal error"}`)}
}

func ok(id string) model.Outcome { return model.Outcome{Kind: model.OK, Status: 201, ID: id} }

// status is an answer without a resource ID, classified by the default contract.
func status(code int) model.Outcome {
	return model.Outcome{Kind: reference.Read(model.DefaultContract(), model.Answer{Status: code}).Kind, Status: code}
}

func noAnswer(why string) model.Outcome { return model.Outcome{Kind: model.Unknown, Err: why} }

// op is call c sent in step; the calls of one step run at the same time,
// the steps one after another.
func op(step int, c model.Call, out model.Outcome) model.Op {
	start := int64(step) * 100
	return model.Op{Step: step, Call: c, Start: start, End: start + 50, Out: out,
		Body: payloads.RenderPayload(model.DefaultContract().Payload, c.Variant, c.Encoding)}
}

func history(ops ...model.Op) model.History { return model.Calls(ops...) }

// subject is what the tickets.subject column holds for a payload variant.
func subject(variant int) string {
	s, _ := payloads.Pointer(payloads.RenderPayload(model.DefaultContract().Payload, variant, 0), "/subject")
	return s
}

// put is one row of one table.
type put struct {
	table string
	row   model.Row
}

func (w world) ticket(tenant, key, id string, variant int) []put {
	return []put{{"tickets", model.Row{Tenant: w.ns.Tenant(tenant), Key: w.ns.Key(key), ID: id,
		Fields: map[string]string{"subject": subject(variant)}}}}
}

func (w world) outbox(tenant, key, ticketID string) []put {
	return []put{{"notification_outbox", model.Row{Tenant: w.ns.Tenant(tenant), Key: w.ns.Key(key), Ref: ticketID}}}
}

func (w world) outboxNullRef(tenant, key string) []put {
	return []put{{"notification_outbox", model.Row{Tenant: w.ns.Tenant(tenant), Key: w.ns.Key(key), RefNull: true}}}
}

// created is the complete effect of one action: its ticket and its outbox row.
func (w world) created(tenant, key, id string, variant int) []put {
	return append(w.ticket(tenant, key, id, variant), w.outbox(tenant, key, id)...)
}

// keylessTicket is a ticket written by a call without a key: the key column
// is NULL, or empty where the column is NOT NULL.
func (w world) keylessTicket(tenant, id string, null bool) []put {
	return []put{{"tickets", model.Row{Tenant: w.ns.Tenant(tenant), KeyNull: null, ID: id,
		Fields: map[string]string{"subject": subject(0)}}}}
}

func rawTicket(tenant, key, id string) []put {
	return []put{{"tickets", model.Row{Tenant: tenant, Key: key, ID: id,
		Fields: map[string]string{"subject": subject(0)}}}}
}

// snapshot is what the observer would read: every effect table present,
// empty or not.
func snapshot(groups ...[]put) model.Snapshot {
	s := model.Snapshot{"tickets": nil, "notification_outbox": nil}
	for _, g := range groups {
		for _, p := range g {
			s[p.table] = append(s[p.table], p.row)
		}
	}
	return s
}

func evaluate(w world, s scenario) []checks.Violation {
	return checks.Evaluate(checks.Input{Contract: model.DefaultContract(), Effects: sampleEffects(),
		Sinks: sinksOf(s.h), NS: w.ns, History: s.h, Rows: s.rows})
}

func dump(vs []checks.Violation) string {
	if len(vs) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  %s | %s\n", v.Message, v.Detail)
	}
	return b.String()
}

type verdictCase struct {
	name  string
	check checks.ID
	// message is a phrase the firing violation's message contains, to tell
	// the different mistakes one check reports.
	message string
	// primary: the check must be the first violation of the bad case.
	primary bool
	// build returns the bad scenario, or the near-identical good one.
	build func(w world, bad bool) scenario
}

// verdictCases has, for every check Evaluate can report, a bad scenario on
// which it fires and a good twin on which nothing fires.
func verdictCases() []verdictCase {
	return append([]verdictCase{
		{name: "outbox row enqueued again on a retry", check: checks.DuplicateEffect, primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 0), ok(w.id1))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, w.outbox(w.a, w.k1, w.id1), nil)),
				}
			}},
		{name: "concurrent duplicates both inserted", check: checks.DuplicateEffect, primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(0, call(w.a, w.k1, 0), ok(either(bad, w.id2, w.id1)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, w.created(w.a, w.k1, w.id2, 0), nil)),
				}
			}},
		{name: "ticket without its outbox row", check: checks.MissingEffect, primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1))),
					snapshot(w.ticket(w.a, w.k1, w.id1, 0), either(bad, nil, w.outbox(w.a, w.k1, w.id1))),
				}
			}},
		// Issue 16.10: a crash between the two writes leaves a ticket
		// without its outbox row, whatever the retry is answered (here a
		// changed payload's conflict): one complete effect set or none.
		{name: "a crashed call's partial effect, never answered ok", check: checks.MissingEffect, message: "partial", primary: true,
			build: func(w world, bad bool) scenario {
				crashed := call(w.a, w.k1, 0)
				crashed.Fault = "crash"
				return scenario{
					history(op(0, crashed, noAnswer("killed")), op(1, call(w.a, w.k1, 1), status(422))),
					snapshot(w.ticket(w.a, w.k1, w.id1, 0), either(bad, nil, w.outbox(w.a, w.k1, w.id1))),
				}
			}},
		{name: "retry answered another ID", check: checks.UnstableResponse, message: "different IDs", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 0), ok(either(bad, w.id2, w.id1)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0)),
				}
			}},
		{name: "ok ID is not the stored row's ID", check: checks.UnstableResponse, message: "not the ID of the action's row", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(either(bad, w.id2, w.id1)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0)),
				}
			}},
		{name: "changed payload replayed", check: checks.ChangedAccepted, primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 1), either(bad, ok(w.id1), status(422)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0)),
				}
			}},
		{name: "re-encoded payload rejected", check: checks.EqualRejected, primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, encoded(call(w.a, w.k1, 0), 3), either(bad, status(422), ok(w.id1)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0)),
				}
			}},
		{name: "rows of an action whose calls were all rejected", check: checks.RejectedEffect, message: "all rejected", primary: true,
			build: func(w world, bad bool) scenario {
				// Two overlapping calls may both answer in_flight; neither may write.
				return scenario{
					history(op(0, call(w.a, w.k1, 0), status(409)), op(0, call(w.a, w.k1, 0), status(409))),
					snapshot(either(bad, w.created(w.a, w.k1, w.id1, 0), nil)),
				}
			}},
		{name: "keyless call left a row with an empty key", check: checks.RejectedEffect, message: "without a key", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, keyless(w.a), status(400))),
					snapshot(either(bad, w.keylessTicket(w.a, w.id1, false), nil)),
				}
			}},
		{name: "keyless call left a row with a NULL key", check: checks.RejectedEffect, message: "without a key", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, keyless(w.a), status(400))),
					snapshot(either(bad, w.keylessTicket(w.a, w.id1, true), nil)),
				}
			}},
		{name: "same key in another tenant replays the first tenant's ticket", check: checks.TenantLeak, primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.b, w.k1, 0), ok(either(bad, w.id1, w.id2)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, nil, w.created(w.b, w.k1, w.id2, 0))),
				}
			}},
		{name: "same key in another tenant is judged against the first tenant's payload", check: checks.TenantLeak, message: "judged against another tenant's action", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.b, w.k1, 1), either(bad, status(422), ok(w.id2)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, nil, w.created(w.b, w.k1, w.id2, 1))),
				}
			}},
		{name: "a key with trailing white space gets the plain key's ticket", check: checks.KeysFolded, primary: true,
			build: func(w world, bad bool) scenario {
				spaced := model.Shaped(w.k1, model.ShapeSpace)
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, spaced, 0), ok(either(bad, w.id1, w.id2)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, nil, w.created(w.a, spaced, w.id2, 0))),
				}
			}},
		{name: "a key in another case is judged against the plain key's payload", check: checks.KeysFolded, message: "judged against the action of a key", primary: true,
			build: func(w world, bad bool) scenario {
				upper := model.Shaped(w.k1, model.ShapeCase)
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, upper, 1), either(bad, status(422), ok(w.id2)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, nil, w.created(w.a, upper, w.id2, 1))),
				}
			}},
		{name: "a retry still in_flight long after the lost call", check: checks.StuckAction, primary: true,
			build: func(w world, bad bool) scenario {
				lost := op(0, faulty(call(w.a, w.k1, 0)), noAnswer("connection reset"))
				retry := op(1, call(w.a, w.k1, 0), status(409))
				gap := either(bad, 6*time.Second, time.Second)
				retry.Start, retry.End = lost.End+int64(gap), lost.End+int64(gap)+50
				return scenario{history(lost, retry), snapshot()}
			}},
		{name: "a replay in_flight long after creation, beside a duplicate sent with it", check: checks.StuckAction,
			build: func(w world, bad bool) scenario {
				// A service that serializes every call of a key, replays too
				// (Adyen's 704), answers one of two concurrent replays
				// in_flight. The other one is in progress while it is, even
				// if its recorded start is a nanosecond later: that explains
				// the answer, however long ago the action was created.
				first := op(0, call(w.a, w.k1, 0), ok(w.id1))
				inflight := op(2, call(w.a, w.k1, 0), status(409))
				inflight.Start = first.End + int64(6*time.Second)
				inflight.End = inflight.Start + 50
				sibling := op(2, call(w.a, w.k1, 0), ok(w.id1))
				sibling.Start = either(bad, inflight.End+1, inflight.Start+1)
				sibling.End = sibling.Start + 100
				return scenario{history(first, inflight, sibling), snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "a transient error replayed to its retry under errors: not-stored", check: checks.ErrorReplay, primary: true,
			build: func(w world, bad bool) scenario {
				failed := op(0, dbError(call(w.a, w.k1, 0)), serverError())
				retry := op(1, call(w.a, w.k1, 0), either(bad, serverError(), ok(w.id1)))
				return scenario{history(failed, retry), snapshot(either(bad, nil, w.created(w.a, w.k1, w.id1, 0)))}
			}},
		{name: "a fixed call refused again after a refused one under refusals: not-stored", check: checks.RefusalReplay, primary: true,
			build: func(w world, bad bool) scenario {
				refused := op(0, broken(call(w.a, w.k1, 0)), status(400))
				fixed := op(1, call(w.a, w.k1, 0), either(bad, status(400), ok(w.id1)))
				return scenario{history(refused, fixed), snapshot(either(bad, nil, w.created(w.a, w.k1, w.id1, 0)))}
			}},
		{name: "retries polled in_flight past the recovery time after a crash", check: checks.StuckAction, primary: true,
			build: func(w world, bad bool) scenario {
				crashed := op(0, faulty(call(w.a, w.k1, 0)), noAnswer("EOF"))
				h := history(crashed)
				// Polled every half second: each poll ends well within the
				// recovery time of the one before, but not of the crash.
				n := either(bad, 12, 10)
				for i := 1; i <= n; i++ {
					poll := op(2, call(w.a, w.k1, 0), status(409))
					if !bad && i == n {
						poll = op(2, call(w.a, w.k1, 0), ok(w.id1))
					}
					poll.Start = crashed.End + int64(i)*int64(time.Second/2)
					poll.End = poll.Start + 50
					h.Ops = append(h.Ops, poll)
				}
				return scenario{h, snapshot(either(bad, nil, w.created(w.a, w.k1, w.id1, 0)))}
			}},
		{name: "two concurrent calls with different payloads both answered ok", check: checks.ChangedAccepted, primary: true,
			build: func(w world, bad bool) scenario {
				// Both calls run in step 0; the one that started second won.
				first := op(0, call(w.a, w.k1, 0), either(bad, ok(w.id1), status(422)))
				second := op(0, call(w.a, w.k1, 1), ok(w.id1))
				second.Start++
				return scenario{history(first, second), snapshot(w.created(w.a, w.k1, w.id1, 1))}
			}},
		{name: "two concurrent equal calls answered ok with different IDs", check: checks.UnstableResponse, message: "carry different IDs", primary: true,
			build: func(w world, bad bool) scenario {
				first := op(0, call(w.a, w.k1, 0), ok(w.id1))
				second := op(0, call(w.a, w.k1, 0), ok(either(bad, w.id2, w.id1)))
				second.Start++
				return scenario{history(first, second), snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "two concurrent calls refused, nothing created", check: checks.NotLinearizable, primary: true,
			build: func(w world, bad bool) scenario {
				first := op(0, call(w.a, w.k1, 0), either(bad, status(422), ok(w.id1)))
				second := op(0, call(w.a, w.k1, 0), status(409))
				second.Start++
				return scenario{history(first, second), snapshot(either(bad, nil, w.created(w.a, w.k1, w.id1, 0)))}
			}},
		{name: "two concurrent equal calls: the loser told conflict", check: checks.EqualRejected, message: "equivalent payload rejected", primary: true,
			build: func(w world, bad bool) scenario {
				first := op(0, call(w.a, w.k1, 0), ok(w.id1))
				second := op(0, encoded(call(w.a, w.k1, 0), 2), either(bad, status(422), status(409)))
				second.Start++
				return scenario{history(first, second), snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "another tenant's concurrent call told in_flight", check: checks.TenantLeak, message: "judged against another tenant's action", primary: true,
			build: func(w world, bad bool) scenario {
				// Both calls run in step 0; the second tenant's is refused
				// because the first tenant's call with the same key runs.
				other := op(0, call(w.b, w.k1, 0), either(bad, status(409), ok(w.id2)))
				other.Start++
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), other),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, nil, w.created(w.b, w.k1, w.id2, 0))),
				}
			}},
		{name: "two concurrent calls of another tenant judged against the first tenant's action", check: checks.TenantLeak, message: "judged against another tenant's action", primary: true,
			build: func(w world, bad bool) scenario {
				first := op(1, call(w.b, w.k1, 1), either(bad, status(422), ok(w.id2)))
				second := op(1, call(w.b, w.k1, 1), status(either(bad, 422, 409)))
				second.Start++
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), first, second),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, nil, w.created(w.b, w.k1, w.id2, 1))),
				}
			}},
		{name: "conflict for an absent action", check: checks.WrongStatus, message: "does not exist", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, either(bad, w.k2, w.k1), 1), status(422))),
					snapshot(w.created(w.a, w.k1, w.id1, 0)),
				}
			}},
		{name: "a burst's calls that did not overlap are judged in the order they ran, not the plan's", check: checks.WrongStatus, message: "does not exist", primary: true,
			build: func(w world, bad bool) scenario {
				// A fast in-process target can answer one call of a burst
				// before the next starts; the plan lists the conflict first.
				refused := op(0, call(w.a, w.k1, 1), status(422))
				created := op(0, call(w.a, w.k1, 0), ok(w.id1))
				created.Start, created.End = 100, 150
				refused.Start, refused.End = either(bad, int64(0), 200), either(bad, int64(50), 250)
				return scenario{history(refused, created), snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "in_flight with nothing in flight", check: checks.WrongStatus, message: "in_flight", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(either(bad, 1, 0), call(w.a, w.k1, 0), status(409))),
					snapshot(w.created(w.a, w.k1, w.id1, 0)),
				}
			}},
		{name: "in_flight when no unanswered call may still run", check: checks.WrongStatus, message: "in_flight", primary: true,
			build: func(w world, bad bool) scenario {
				// A call nobody heard back from may still be running, so a
				// later retry may find it in flight.
				first := call(w.a, w.k1, 0)
				return scenario{
					history(op(0, either(bad, first, faulty(first)), either(bad, ok(w.id1), noAnswer("reply lost"))),
						op(1, call(w.a, w.k1, 0), status(409))),
					snapshot(w.created(w.a, w.k1, w.id1, 0)),
				}
			}},
		{name: "invalid for a call with a key", check: checks.WrongStatus, message: "invalid for a call that carried a key", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{history(op(0, either(bad, call(w.a, w.k1, 0), keyless(w.a)), status(400))), snapshot()}
			}},
		{name: "keyless call not answered invalid", check: checks.WrongStatus, message: "without a key was not answered invalid", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{history(op(0, keyless(w.a), either(bad, ok(w.id1), status(400)))), snapshot()}
			}},
		{name: "5xx answer", check: checks.WrongStatus, message: "5xx", primary: true,
			build: func(w world, bad bool) scenario {
				first := call(w.a, w.k1, 0)
				return scenario{
					history(op(0, either(bad, first, faulty(first)), either(bad, status(500), noAnswer("reply lost"))),
						op(1, call(w.a, w.k1, 0), ok(w.id1))),
					snapshot(w.created(w.a, w.k1, w.id1, 0)),
				}
			}},
		{name: "404 is outside the contract", check: checks.WrongStatus, message: "outside the contract", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), either(bad, status(404), ok(w.id1)))),
					snapshot(either(bad, nil, w.created(w.a, w.k1, w.id1, 0))),
				}
			}},
		{name: "2xx without a resource ID", check: checks.WrongStatus, message: "without a resource ID", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), either(bad, status(201), ok(w.id1)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0)),
				}
			}},
		{name: "rows of an action never called", check: checks.StrayWrite, message: "never called", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, either(bad, w.k1, w.k2), 0), ok(either(bad, w.id1, w.id2)))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), w.created(w.a, w.k2, w.id2, 0)),
				}
			}},
		{name: "row of a namespace tenant with a foreign key", check: checks.StrayWrite, message: "outside the plan", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, rawTicket(w.ns.Tenant(w.a), "elsewhere-"+w.k1, w.id2), nil)),
				}
			}},
		{name: "row of a foreign tenant with a namespace key", check: checks.StrayWrite, message: "outside the plan", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), either(bad, rawTicket("elsewhere-"+w.a, w.ns.Key(w.k1), w.id2), nil)),
				}
			}},
		{name: "stored subject is not the winning payload's", check: checks.FieldsDiffer, primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1))),
					snapshot(w.ticket(w.a, w.k1, w.id1, either(bad, 1, 0)), w.outbox(w.a, w.k1, w.id1)),
				}
			}},
		{name: "outbox row points at another action's ticket", check: checks.BrokenReference, message: "another action's row", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k2, 0), ok(w.id2))),
					snapshot(w.created(w.a, w.k1, w.id1, 0), w.ticket(w.a, w.k2, w.id2, 0), w.outbox(w.a, w.k2, either(bad, w.id1, w.id2))),
				}
			}},
		{name: "outbox row with a NULL reference", check: checks.BrokenReference, message: "at none", primary: true,
			build: func(w world, bad bool) scenario {
				return scenario{
					history(op(0, call(w.a, w.k1, 0), ok(w.id1))),
					snapshot(w.ticket(w.a, w.k1, w.id1, 0), either(bad, w.outboxNullRef(w.a, w.k1), w.outbox(w.a, w.k1, w.id1))),
				}
			}},
		{name: "a replica exited on its own after a db-error", check: checks.ReplicaExited, message: "after a db-error fault", primary: true,
			build: func(w world, bad bool) scenario {
				// The service died of the session the fault ended: its
				// call got no answer, and a call after it found the
				// replica gone (the exit's event lists it as touched).
				h := history(op(0, dbError(call(w.a, w.k1, 0)), noAnswer("EOF")), op(1, call(w.a, w.k2, 0), either(bad, noAnswer("replica exited"), ok(w.id2))))
				h.Faults = []model.FaultEvent{{Kind: model.FaultDBError, Fired: true, Start: 0, End: 50, Ops: []int{0}}}
				if bad {
					h.Faults = append(h.Faults, model.FaultEvent{Kind: model.FaultExit, Step: 0, Start: 50, End: 120, Fired: true, Ops: []int{1},
						Note: "replica 0 exit status 1; last output:\nUnhandled 'error' event"})
				}
				return scenario{h, snapshot(either(bad, nil, w.created(w.a, w.k2, w.id2, 0)))}
			}},
		{name: "no answer without a planned fault", check: checks.NoAnswer, primary: true,
			build: func(w world, bad bool) scenario {
				c := call(w.a, w.k1, 0)
				return scenario{history(op(0, either(bad, c, faulty(c)), noAnswer("timeout after 5s"))), snapshot()}
			}},
		{name: "no answer of a call no fault of the history touched", check: checks.NoAnswer, primary: true,
			build: func(w world, bad bool) scenario {
				// A call made while a crash left its replica down carries no
				// fault of its own: the crash's event lists it as touched.
				h := history(op(0, faulty(call(w.a, w.k1, 0)), noAnswer("EOF")), op(1, call(w.a, w.k2, 0), noAnswer("replica down")))
				h.Faults = []model.FaultEvent{{Kind: model.FaultCrash, Fired: true, Ops: either(bad, []int{0}, []int{0, 1})}}
				return scenario{h, snapshot()}
			}},
	}, sinkCases()...)
}

// TestEvaluate shows every check firing on a bad scenario and nothing
// firing on its good twin.
func TestEvaluate(t *testing.T) {
	for _, tc := range verdictCases() {
		t.Run(string(tc.check)+" "+tc.name, func(t *testing.T) {
			bad := evaluate(plain, tc.build(plain, true))
			if !slices.ContainsFunc(bad, func(v checks.Violation) bool {
				return v.Check == tc.check && strings.Contains(v.Message, tc.message)
			}) {
				t.Errorf("bad case: no %s violation with %q; got:\n%s", tc.check, tc.message, dump(bad))
			} else if tc.primary && bad[0].Check != tc.check {
				t.Errorf("bad case: primary violation is %s, want %s; got:\n%s", bad[0].Check, tc.check, dump(bad))
			}
			if good := evaluate(plain, tc.build(plain, false)); len(good) != 0 {
				t.Errorf("good case: want no violation, got:\n%s", dump(good))
			}
		})
	}
}

// TestEvaluateCoversTheCatalogue keeps the table honest: every check
// Evaluate can produce has a case.
func TestEvaluateCoversTheCatalogue(t *testing.T) {
	for _, c := range checks.Catalogue() {
		if !slices.ContainsFunc(verdictCases(), func(tc verdictCase) bool { return tc.check == c.ID }) {
			t.Errorf("no case for %s (%s)", c.ID, c.Name)
		}
	}
}

// TestMessagesAreDeterministic replays every bad scenario in another
// namespace with other tenants, keys and IDs: the messages, which rapid
// compares while shrinking, must not change; only the details may.
func TestMessagesAreDeterministic(t *testing.T) {
	names := []string{string(odd.ns), odd.a, odd.b, odd.k1, odd.k2, odd.id1, odd.id2}
	for _, tc := range verdictCases() {
		t.Run(string(tc.check)+" "+tc.name, func(t *testing.T) {
			p := evaluate(plain, tc.build(plain, true))
			o := evaluate(odd, tc.build(odd, true))
			if len(p) != len(o) {
				t.Fatalf("%d violations in one world, %d in the other:\n%s---\n%s", len(p), len(o), dump(p), dump(o))
			}
			for i := range p {
				if p[i].Check != o[i].Check || p[i].Message != o[i].Message {
					t.Errorf("violation %d differs between worlds:\n  %s\n  %s", i, p[i].Message, o[i].Message)
				}
				if p[i].Detail == o[i].Detail {
					t.Errorf("violation %d: detail %q does not say where", i, o[i].Detail)
				}
				for _, name := range names {
					if strings.Contains(o[i].Message, name) {
						t.Errorf("message %q contains %q", o[i].Message, name)
					}
				}
				if !strings.HasPrefix(o[i].Message, string(o[i].Check)+" ") {
					t.Errorf("message %q does not start with its check ID", o[i].Message)
				}
			}
		})
	}
}

// TestEvaluateIsRepeatable: Evaluate walks maps; its result must not
// depend on their order.
func TestEvaluateIsRepeatable(t *testing.T) {
	w := plain
	s := scenario{
		history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(0, call(w.a, w.k2, 0), ok(w.id2)),
			op(1, call(w.b, w.k1, 0), ok(w.id1)), op(1, call(w.b, w.k2, 0), status(500)),
			op(2, keyless(w.a), ok("9")), op(2, call(w.a, w.k1, 1), ok(w.id1))),
		snapshot(w.ticket(w.a, w.k1, w.id1, 1), w.outbox(w.a, w.k1, w.id2), w.created(w.a, w.k2, w.id2, 0),
			w.created(w.a, w.k2, w.id2, 0), w.keylessTicket(w.a, "9", true), w.created(w.b, "k9", "10", 0)),
	}
	first := evaluate(w, s)
	if len(first) < 8 {
		t.Fatalf("scenario should break many rules, got:\n%s", dump(first))
	}
	for range 50 {
		if again := evaluate(w, s); !reflect.DeepEqual(again, first) {
			t.Fatalf("Evaluate gave another result:\n%s---\n%s", dump(first), dump(again))
		}
	}
}

func TestSortOrdersByPriorityThenMessageThenDetail(t *testing.T) {
	var want []checks.Violation
	for _, c := range checks.Catalogue() {
		id := c.ID
		want = append(want,
			checks.Violation{Check: id, Message: string(id) + " a", Detail: "1"},
			checks.Violation{Check: id, Message: string(id) + " a", Detail: "2"},
			checks.Violation{Check: id, Message: string(id) + " b", Detail: "0"})
	}
	for seed := range uint64(20) {
		got := slices.Clone(want)
		rand.New(rand.NewPCG(seed, 0)).Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		checks.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: sorted order\n%s\nwant\n%s", seed, dump(got), dump(want))
		}
	}
}

func TestFired(t *testing.T) {
	vs := []checks.Violation{
		{Check: checks.StrayWrite}, {Check: checks.MissingEffect}, {Check: checks.TenantLeak},
		{Check: checks.MissingEffect}, {Check: checks.NoAnswer}, {Check: checks.WrongStatus},
	}
	want := []checks.ID{checks.TenantLeak, checks.MissingEffect, checks.StrayWrite, checks.WrongStatus, checks.NoAnswer}
	if got := checks.IDsOf(vs); !slices.Equal(got, want) {
		t.Errorf("Fired = %v, want %v", got, want)
	}
	if got := checks.IDsOf(nil); len(got) != 0 {
		t.Errorf("Fired(nil) = %v, want none", got)
	}
}

// TestTenantLeakOutranksItsMissingEffect: the leak also leaves the other
// tenant without rows; the leak is the news and must come first.
func TestTenantLeakOutranksItsMissingEffect(t *testing.T) {
	w := plain
	vs := evaluate(w, scenario{
		history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.b, w.k1, 0), ok(w.id1))),
		snapshot(w.created(w.a, w.k1, w.id1, 0)),
	})
	if got, want := checks.IDsOf(vs), []checks.ID{checks.TenantLeak, checks.MissingEffect}; !slices.Equal(got, want) {
		t.Fatalf("Fired = %v, want %v; violations:\n%s", got, want, dump(vs))
	}
	if vs[0].Check != checks.TenantLeak || vs[len(vs)-1].Check != checks.MissingEffect {
		t.Errorf("not sorted by priority:\n%s", dump(vs))
	}
}

// A plan of two calls of one action whose retry was given another
// ticket's ID, judged against the rows the target committed.
func ExampleEvaluate() {
	ns := model.Namespace("ns1-")
	c := model.DefaultContract()
	body := payloads.RenderPayload(c.Payload, 0, 0)
	call := model.Call{Tenant: "A", Key: "k1"}
	vs := checks.Evaluate(checks.Input{
		Contract: c,
		Effects:  sampleEffects(),
		NS:       ns,
		History: model.History{Ops: []model.Op{
			{Call: call, Body: body, Start: 0, End: 10, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}},
			{Call: call, Body: body, Start: 20, End: 30, Out: model.Outcome{Kind: model.OK, Status: 200, ID: "8"}},
		}},
		Rows: model.Snapshot{
			"tickets":             {{Tenant: "ns1-A", Key: "ns1-k1", ID: "7", Fields: map[string]string{"subject": "Printer offline"}}},
			"notification_outbox": {{Tenant: "ns1-A", Key: "ns1-k1", Ref: "7"}},
		},
	})
	for _, v := range vs {
		fmt.Println(v.Message)
		fmt.Println("  ", v.Detail)
	}
	// Output:
	// IDEM-003 unstable response: an ok answer's ID is not the ID of the action's row in tickets
	//    action A/k1 was answered id 8 (ids 7)
	// IDEM-003 unstable response: ok answers of one action carry different IDs
	//    call A/k1 v0 got ok 200 id 8
}

// Stored fields are compared by JSON value: a numeric column's 1250.00 and
// a Node service's 2 for a payload's 2.0 are the payload's numbers, and a
// NULL is no amount at all.
func TestFieldsComparedByValue(t *testing.T) {
	ns := model.Namespace("ns1-")
	c := model.DefaultContract()
	c.Payload = map[string]any{"amount_cents": 1250, "rate": 2.5, "note": "coffee"}
	body := []byte(`{"amount_cents":1250,"note":"coffee","rate":2.50}`)
	effects := []effect.Effect{{Table: "payments", Tenant: "tenant", Key: "idem_key", ID: "id", PerAction: 1,
		Fields: map[string]string{"amount_cents": "/amount_cents", "rate": "/rate", "note": "/note"}}}
	call := model.Call{Tenant: "A", Key: "k1"}
	for _, tc := range []struct {
		fields map[string]string
		fires  bool
	}{
		{map[string]string{"amount_cents": "1250.00", "rate": "2.5", "note": "coffee"}, false},
		{map[string]string{"amount_cents": "1250", "rate": "2.50", "note": "coffee"}, false},
		{map[string]string{"amount_cents": "1251.00", "rate": "2.5", "note": "coffee"}, true},
		{map[string]string{"rate": "2.5", "note": "coffee"}, true}, // amount NULL
		{map[string]string{"amount_cents": "1250", "rate": "2.5", "note": "Coffee"}, true},
	} {
		vs := checks.Evaluate(checks.Input{Contract: c, Effects: effects, NS: ns,
			History: model.History{Ops: []model.Op{{Call: call, Body: body, Start: 0, End: 10, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}}}},
			Rows:    model.Snapshot{"payments": {{Tenant: "ns1-A", Key: "ns1-k1", ID: "7", Fields: tc.fields}}},
		})
		fired := slices.ContainsFunc(vs, func(v checks.Violation) bool { return v.Check == checks.FieldsDiffer })
		if fired != tc.fires || len(vs) > 1 {
			t.Errorf("stored %v: violations %v; want IDEM-010 %v and nothing else", tc.fields, vs, tc.fires)
		}
	}
}

// Where answer matchers decide what a success is, a wrong 2xx says what
// they take: "without a resource ID" would send a GraphQL user looking for
// an ID that is not the problem. The message holds no ID, so a shrunk plan
// fails the same way.
func TestWrongStatusSaysWhatMatchersTake(t *testing.T) {
	ns := model.Namespace("ns1-")
	graphql := model.DefaultContract()
	graphql.Answers.Created = []model.Matcher{{Status: []int{200}, Present: []string{"/data/createPayment"}, Absent: []string{"/errors"}, ID: "/data/createPayment/id"}}
	call := model.Call{Tenant: "A", Key: "k1"}
	for _, tc := range []struct {
		name     string
		contract model.Contract
		body     string
		want     string
	}{
		{"shorthand", model.DefaultContract(), `{}`, "a 2xx answer without a resource ID"},
		{"no matcher takes it", graphql, `{"errors":[{"extensions":{"code":"RATE_LIMITED"}}]}`,
			"a 2xx answer that no matcher takes (created: {status: [200], present: [/data/createPayment], absent: [/errors], id: /data/createPayment/id})"},
		{"matched without its ID", graphql, `{"data":{"createPayment":{"ref":"7"}}}`,
			"an answer that answers.created takes, without a resource ID where it says ({status: [200], present: [/data/createPayment], absent: [/errors], id: /data/createPayment/id})"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := model.Outcome{Status: 200, Body: model.Body(tc.body)}
			out.Kind = reference.Read(tc.contract, model.Answer{Status: 200, Body: []byte(tc.body)}).Kind
			if out.Kind != model.Other {
				t.Fatalf("answer read as %s; the case needs one outside the contract", out.Kind)
			}
			vs := checks.Evaluate(checks.Input{Contract: tc.contract, Effects: sampleEffects(), NS: ns,
				History: model.Calls(model.Op{Call: call, Body: []byte(`{}`), Start: 0, End: 10, Out: out}), Rows: model.Snapshot{}})
			i := slices.IndexFunc(vs, func(v checks.Violation) bool { return v.Check == checks.WrongStatus })
			if i < 0 {
				t.Fatalf("no IDEM-008: %v", vs)
			}
			if !strings.HasSuffix(vs[i].Message, ": "+tc.want) {
				t.Errorf("message %q\nwant    %q", vs[i].Message, tc.want)
			}
		})
	}
}

// A call of a stalled burst may go unanswered while the db-stall holds it,
// but a call that, once released, waited longer than it was held and still
// got no answer hung in the service: IDEM-014. (A request joined to an
// identical one in the process never reaches the lock; the nemesis
// releases it after its wait, and the call then waits out its timeout.)
func TestNoAnswerAfterTheStallReleased(t *testing.T) {
	ns := model.Namespace("ns1-")
	first, joined := model.Call{Tenant: "A", Key: "k1"}, model.Call{Tenant: "A", Key: "k1"}
	body := payloads.RenderPayload(model.DefaultContract().Payload, 0, 0)
	const ms = int64(time.Millisecond)
	for _, tc := range []struct {
		name    string
		release int64
		fires   bool
	}{
		{"released early, then hung", 1000 * ms, true},
		{"held until it gave up", 2900 * ms, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := model.History{
				Ops: []model.Op{
					{Call: first, Body: body, Start: 0, End: tc.release + 20*ms, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}},
					{Call: joined, Body: body, Start: 0, End: 3000 * ms, Out: model.Outcome{Kind: model.Unknown, Err: "timeout"}},
				},
				Faults: []model.FaultEvent{{Kind: model.FaultDBStall, Start: 0, End: tc.release, Fired: false, Ops: []int{0, 1}}},
			}
			vs := checks.Evaluate(checks.Input{Contract: model.DefaultContract(), Effects: sampleEffects(), NS: ns, History: h,
				Rows: snapshot(plain.created("A", "k1", "7", 0))})
			fired := slices.ContainsFunc(vs, func(v checks.Violation) bool { return v.Check == checks.NoAnswer })
			if fired != tc.fires {
				t.Errorf("IDEM-014 fired %v, want %v: %v", fired, tc.fires, vs)
			}
		})
	}
}
