package engine

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
)

// A failure first seen as one bug that shrank into a more severe new one
// (a hang in a burst whose two calls alone answer 500) leaves the first to
// be found: a run on the sample with three bugs once reported the 500 and
// dropped the hang for the rest of its plans, its identity taken as
// reported. One that kept its kind in another transition stands for both.
func TestSettleCountsTheFirstIdentityOnlyWhenShrinkingKeptItsKind(t *testing.T) {
	hang := bugid.ID{Check: checks.NoAnswer, Transition: bugid.InBurst}
	fivexx := bugid.ID{Check: checks.WrongStatus, Transition: bugid.InBurst, Status: "5xx"}
	dupBurst := bugid.ID{Check: checks.DuplicateEffect, Transition: bugid.InBurst, Rows: "tickets"}
	dupSeq := bugid.ID{Check: checks.DuplicateEffect, Transition: bugid.InSequence, Rows: "tickets"}
	plan := model.Plan{Steps: seqOf(c1("A", "k1", 0))}
	for _, tc := range []struct {
		name       string
		bug, own   bugid.ID
		why        string
		known, not []bugid.ID
		reported   int
	}{
		{name: "switched, reported", bug: hang, own: fivexx, known: []bugid.ID{fivexx}, not: []bugid.ID{hang}, reported: 1},
		{name: "switched, attributed", bug: hang, own: fivexx, why: "the same", known: []bugid.ID{fivexx}, not: []bugid.ID{hang}},
		{name: "kept, reported", bug: dupBurst, own: dupSeq, known: []bugid.ID{dupBurst, dupSeq}, reported: 1},
		{name: "kept, attributed", bug: dupBurst, own: dupSeq, why: "the same", known: []bugid.ID{dupBurst, dupSeq}},
	} {
		r := &runner{}
		r.settle(&findings.Failure{Check: tc.own.Check, Plan: plan}, tc.bug, tc.own, []bugid.ID{tc.own}, true, tc.why, nil, findings.Why{})
		for _, id := range tc.known {
			if !r.known(id) {
				t.Errorf("%s: %s not known after settling", tc.name, id)
			}
		}
		for _, id := range tc.not {
			if r.known(id) {
				t.Errorf("%s: %s known after settling, though no plan of the run shows it", tc.name, id)
			}
		}
		if len(r.bugs) != tc.reported {
			t.Errorf("%s: %d bugs reported, want %d", tc.name, len(r.bugs), tc.reported)
		}
	}
}
