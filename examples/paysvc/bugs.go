package paysvc

import (
	"fmt"
	"slices"
	"strings"
)

// behavior is what a mode changes in the request flow. The correct mode is
// the zero value; each bug flips exactly the switches that make up its
// mistake, so a new bug is one new field here and one entry in bugModes.
type behavior struct {
	// replayChanged replays the stored payment even when the request
	// differs from the one that created it.
	replayChanged bool
	// merchantLeak looks a key up by the key alone before claiming it, so
	// one merchant's key replays another merchant's payment.
	merchantLeak bool
	// racyInsert skips the key table: it looks the payment up, then
	// inserts it, with no lock and no constraint between the two, so
	// concurrent calls of one key both create.
	racyInsert bool
	// ledgerOnRetry writes another ledger entry on every replay.
	ledgerOnRetry bool
}

// bugMode is one entry of the bug zoo.
type bugMode struct {
	name string
	b    behavior
}

// bugModes lists the bug zoo in its documented order.
var bugModes = []bugMode{
	{name: "replay-changed", b: behavior{replayChanged: true}},
	{name: "merchant-leak", b: behavior{merchantLeak: true}},
	{name: "racy-insert", b: behavior{racyInsert: true}},
	{name: "ledger-on-retry", b: behavior{ledgerOnRetry: true}},
}

// Bugs returns the names accepted by Options.Bug, in documented order.
func Bugs() []string {
	names := make([]string, len(bugModes))
	for i, m := range bugModes {
		names[i] = m.name
	}
	return names
}

// behaviorFor returns the behavior of the named mode: "" is the correct
// mode, and a comma-separated list ("replay-changed,merchant-leak")
// switches in every mistake it names. An unknown or empty name is refused
// with the list of valid ones.
func behaviorFor(bug string) (behavior, error) {
	if bug == "" {
		return behavior{}, nil
	}
	var all behavior
	for _, name := range strings.Split(bug, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(bugModes, func(m bugMode) bool { return m.name == name })
		if i < 0 {
			return behavior{}, fmt.Errorf("paysvc: unknown bug mode %q in %q (valid: %s, or several joined by commas; empty for the correct mode)",
				name, bug, strings.Join(Bugs(), ", "))
		}
		all = all.or(bugModes[i].b)
	}
	return all, nil
}

// or switches in both behaviors' mistakes. (A test checks every field is
// here.)
func (b behavior) or(o behavior) behavior {
	return behavior{
		replayChanged: b.replayChanged || o.replayChanged,
		merchantLeak:  b.merchantLeak || o.merchantLeak,
		racyInsert:    b.racyInsert || o.racyInsert,
		ledgerOnRetry: b.ledgerOnRetry || o.ledgerOnRetry,
	}
}
