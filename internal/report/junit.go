package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/redact"
)

// JUnitFailure is one failure of a run as the JUnit report shows it: the minimal
// plan, what it did, and every violation, primary first. A finding without
// a plan holds violations no plan explains (changes outside the namespace).
type JUnitFailure struct {
	Plan       model.Plan
	History    model.History
	Violations []checks.Violation
	// Sightings are the same bug seen another way, listed in its text;
	// SightingOf, on a sighting given as a finding of its own (so that
	// the checks it fired fail), names the bug it is seen again.
	Sightings  []Sighting
	SightingOf string
}

// JUnitRun is what WriteJUnit reports: one run against one target.
type JUnitRun struct {
	// Suite names the testsuite ("idemstress " and Suite; "idemstress"
	// when empty). A CI server follows a suite's history by its name, so it
	// should be the same on every run: what is tested (a contract's method
	// and URL path), never where it ran (a host and port).
	Suite string
	// Target is where the calls went, a property of the suite.
	Target   string
	Seed     uint64
	Elapsed  time.Duration
	Failures []JUnitFailure
	// Inconclusive, when set, says why the run proves nothing: every check
	// that did not fire is then reported skipped, not passed.
	Inconclusive string
	// Coverage, when known, counts the transitions the run made: a check
	// that did not fire and none of whose transitions happened is then
	// reported skipped ("not exercised: …"), not passed.
	Coverage coverage.Coverage
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes a JUnit XML report of one run: one test case per check
// of checks.Catalogue(), failed when the check fired in some finding, with
// that finding's minimal plan and explanation (the finding in which it is
// the primary check, if any), so a CI dashboard shows which rules broke;
// skipped when the run proved nothing of it (inconclusive, or not
// exercised); passed otherwise.
// Passwords are masked in every text it writes (an inconclusive run's
// reason may quote a service's argv with its database URL), as on stdout,
// and a line past model.MaxLine is cut, as there.
func WriteJUnit(w io.Writer, run JUnitRun) error {
	secs := strconv.FormatFloat(run.Elapsed.Seconds(), 'f', 3, 64)
	target := redact.String(run.Target)
	name := "idemstress"
	if run.Suite != "" {
		name += " " + redact.String(run.Suite)
	}
	suite := junitSuite{Name: name, Time: secs, Properties: []junitProperty{
		{"target", target}, {"seed", strconv.FormatUint(run.Seed, 10)}}}
	if run.Coverage != nil {
		var vs []checks.Violation
		for _, f := range run.Failures {
			vs = append(vs, f.Violations...)
		}
		status := checks.Statuses(run.Coverage, checks.IDsOf(vs), run.Inconclusive != "")
		suite.Properties = append(suite.Properties, junitProperty{"coverage", CoverageLine(run.Coverage, status)})
	}
	for _, c := range checks.Catalogue() {
		tc := junitCase{Name: string(c.ID) + " " + c.Name, ClassName: "idemstress." + string(c.ID), Time: "0"}
		if f, ok := findingOf(run.Failures, c.ID); ok {
			v := f.Violations[slices.IndexFunc(f.Violations, func(v checks.Violation) bool { return v.Check == c.ID })]
			tc.Failure = &junitFailure{Message: shown(v.Message), Type: string(c.ID), Text: shown(failureText(f, v))}
			suite.Failures++
		} else if run.Inconclusive != "" {
			tc.Skipped = &junitSkipped{Message: "inconclusive run: " + shown(run.Inconclusive)}
			suite.Skipped++
		} else if run.Coverage != nil && !c.Exercised(run.Coverage) {
			tc.Skipped = &junitSkipped{Message: c.Unexercised(run.Coverage)}
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{Name: "idemstress", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Time: secs,
		Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// failureText is a failed case's text: the finding's minimal plan
// explained, with what the check fired beside and where else the bug was
// seen, or the violation v alone when it came from outside any plan.
func failureText(f JUnitFailure, v checks.Violation) string {
	if len(f.Plan.Steps) == 0 {
		return "outside any plan:\n  " + v.Message + "\n      " + v.Detail + "\n"
	}
	text := ""
	if f.Violations[0].Check != v.Check {
		text = fmt.Sprintf("fired beside the primary finding %s\n", f.Violations[0].Message)
	}
	if f.SightingOf != "" {
		text = fmt.Sprintf("the bug %s seen another way (listed under it, not a bug of its own)\n", f.SightingOf) + text
	}
	text += Explain(f.Plan, f.History, f.Violations)
	for _, s := range f.Sightings {
		text += "also seen as " + s.line() + "\n"
	}
	return text
}

// shown is a message as JUnit holds it: passwords masked, and each line
// cut as every message idemstress writes is (model.CutLines): a reason or
// a detail may quote 200 KB of a service's output.
func shown(s string) string { return model.CutLines(redact.String(s)) }

// findingOf is the finding that shows check id best: one whose primary
// check it is, else the first in which it fired at all.
func findingOf(fs []JUnitFailure, id checks.ID) (JUnitFailure, bool) {
	for _, f := range fs {
		if len(f.Violations) > 0 && f.Violations[0].Check == id {
			return f, true
		}
	}
	for _, f := range fs {
		if slices.ContainsFunc(f.Violations, func(v checks.Violation) bool { return v.Check == id }) {
			return f, true
		}
	}
	return JUnitFailure{}, false
}
