package findings

import (
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// Failure is one bug a run found: a failing plan, shrunk, with what it did
// and what it broke.
type Failure struct {
	// Check names the bug: the most severe check the plan fired that no
	// bug reported before it had fired. Violations[0] may be another,
	// more severe one that an earlier bug already stands for.
	Check checks.ID `json:"check"`
	// Bug names what went wrong (bugid.ID: the check and the transition that
	// broke), which tells two bugs of one check apart.
	Bug        string             `json:"bug,omitempty"`
	Plan       model.Plan         `json:"plan"`
	History    model.History      `json:"history"`
	Violations []checks.Violation `json:"violations"`
	// Original is the failing plan the search found, before shrinking,
	// and PlanSeed the seed rapid drew it from (in the world of the
	// fault dealt to it, for one of a run's first plans).
	Original model.Plan `json:"original"`
	PlanSeed uint64     `json:"plan_seed"`
	// Plans counts the plans the search tried until it found this one.
	Plans int `json:"plans"`
	// Detect is the time from the start of the run to the failing plan;
	// Shrink the time spent shrinking it.
	Detect time.Duration `json:"detect_ns"`
	Shrink time.Duration `json:"shrink_ns"`
	// Budget is the time shrinking was given: ShrinkTime, or more when
	// the failing plan was slow (a hang costs a call timeout), so that it
	// fits several candidates as costly.
	Budget time.Duration `json:"shrink_budget_ns"`
	// Flaky says the minimal plan did not fail again the same way when
	// rerun.
	Flaky bool `json:"flaky,omitempty"`
	// NotMinimal says shrinking ran out of budget (or the run stopped)
	// before no smaller candidate failed: Plan is the smallest failing
	// plan found so far, reported rather than dropped.
	NotMinimal bool `json:"not_minimal,omitempty"`
	// Sightings are this bug seen again another way: failures of other
	// checks, faults or interleavings whose check needs what this bug's
	// minimal plan needs (internal/sighting), listed under it rather than
	// reported as bugs of their own; most severe first.
	Sightings []Sighting `json:"sightings,omitempty"`
	// id is the identity Bug names, kept for telling its sightings.
	id bugid.ID
}

// Checks lists the checks the failure fired, primary first.
func (f *Failure) Checks() []checks.ID { return checks.IDsOf(f.Violations) }

// Result is what a run found.
type Result struct {
	Verdict checks.Verdict `json:"verdict"`
	// Target is where the calls went: the target's URL, or the addresses
	// of the replicas the run started.
	Target string `json:"target"`
	Seed   uint64 `json:"seed"`
	// Plans counts the plans tried until the first failure (or all of them).
	Plans int `json:"plans"`
	// Searched counts every plan the search tried, after failures too.
	Searched int `json:"searched"`
	// Attributed counts the failing plans that were not reported because
	// they showed only bugs already reported (each is said in Notes).
	Attributed int `json:"attributed,omitempty"`
	// AttributedChecks are the checks those failures fired: they fired in
	// this run, though no reported bug's rows name them.
	AttributedChecks []checks.ID `json:"attributed_checks,omitempty"`
	// Executions counts every plan executed, shrinking included.
	Executions int `json:"executions"`
	// Calls counts the calls of every execution; FaultsFired the faults
	// that fired in them.
	Calls       int `json:"calls"`
	FaultsFired int `json:"faults_fired"`
	// Failures are the distinct bugs found, each shrunk on its own, root
	// causes first, then by severity (checks.Catalogue's order of their
	// Check): see Order.
	Failures []*Failure `json:"failures,omitempty"`
	// Detect is the time to the first failing plan; Total includes shrinking.
	Detect time.Duration `json:"detect_ns"`
	Total  time.Duration `json:"total_ns"`
	// Outside lists changes to rows outside the run's namespace (IDEM-009):
	// no plan explains them, so none is shrunk.
	Outside []checks.Violation `json:"outside,omitempty"`
	// Unfired counts the executions whose planned faults did not all fire.
	Unfired int `json:"unfired,omitempty"`
	// Faults counts the faults of every case, by kind: planned and fired.
	Faults map[model.Fault]faultkind.FaultCount `json:"faults,omitempty"`
	// Coverage counts the transitions every execution made, shrinking
	// included; a check none of whose transitions (checks.Check.Needs)
	// happened was not exercised, and is never reported passed.
	Coverage coverage.Coverage `json:"coverage"`
	// Flaky says some minimal plan did not fail again the same way when rerun.
	Flaky bool `json:"flaky,omitempty"`
	// Interrupted says the run's context ended before its budget was
	// spent: the result holds what was found until then.
	Interrupted bool `json:"interrupted,omitempty"`
	// Notes say where reading the effect tables cost more than the plans
	// wrote (a table scanned for every plan, and why), and what the check
	// for changes outside the namespace left out (observe.Observer.Notes).
	Notes []string `json:"notes,omitempty"`
	// Err says why a run is inconclusive, or why a failure may not be minimal.
	Err error `json:"-"`
	// Contract, when set, is the contract error that ended a run which
	// had found Failures before it: Run returns it as its error too. The
	// failures stay reported, and may follow from the contract's mistake.
	Contract error `json:"-"`
}

// IDOf is the identity f's Bug names, kept for telling its sightings (a
// function, not a method: callers of stress see Failure's methods).
func IDOf(f *Failure) bugid.ID { return f.id }

// SetID gives f the identity id, which Bug then names.
func SetID(f *Failure, id bugid.ID) { f.id, f.Bug = id, id.String() }
