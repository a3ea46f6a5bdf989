package report_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/report"
)

// parsedSuites is JUnit XML as a CI server reads it.
type parsedSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Tests int    `xml:"tests,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Class   string `xml:"classname,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func junit(t *testing.T, run report.JUnitRun) parsedSuites {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteJUnit(&b, run); err != nil {
		t.Fatal(err)
	}
	var got parsedSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, b.String())
	}
	if !strings.HasPrefix(b.String(), "<?xml") {
		t.Errorf("no XML declaration:\n%s", b.String())
	}
	if len(got.Suites) != 1 || len(got.Suites[0].Cases) != len(checks.Catalogue()) || got.Tests != len(checks.Catalogue()) {
		t.Fatalf("want one suite of %d cases, got %+v", len(checks.Catalogue()), got)
	}
	for i, c := range checks.Catalogue() {
		if tc := got.Suites[0].Cases[i]; tc.Name != string(c.ID)+" "+c.Name || tc.Class != "idemstress."+string(c.ID) {
			t.Errorf("case %d is %q (%s), want %s %s", i, tc.Name, tc.Class, c.ID, c.Name)
		}
	}
	return got
}

// One test case per check; the checks that fired fail with the minimal
// plan and the explanation; the others pass, or are skipped when the run
// was inconclusive.
func TestWriteJUnit(t *testing.T) {
	cs := cases()[1]
	// A key with a control character must not break the XML.
	odd := *cs.MinimalPlan
	odd.Steps = append(odd.Steps, model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k\x01<&>"}}})
	vs := append(cs.Violations, checks.Violation{Check: checks.MissingEffect, Message: "IDEM-002 missing effect: x", Detail: "action A/k1"})
	got := junit(t, report.JUnitRun{Target: "http://127.0.0.1:1/tickets", Seed: 9, Elapsed: time.Second,
		Failures: []report.JUnitFailure{{Plan: odd, History: cs.History, Violations: vs}}})
	if got.Failures != 2 {
		t.Errorf("%d failures, want 2 (IDEM-001 and IDEM-002)", got.Failures)
	}
	for _, tc := range got.Suites[0].Cases {
		fired := strings.HasPrefix(tc.Name, "IDEM-001") || strings.HasPrefix(tc.Name, "IDEM-002")
		switch {
		case fired && tc.Failure == nil:
			t.Errorf("%s fired but passes", tc.Name)
		case !fired && (tc.Failure != nil || tc.Skipped != nil):
			t.Errorf("%s did not fire but is %+v %+v", tc.Name, tc.Failure, tc.Skipped)
		case strings.HasPrefix(tc.Name, "IDEM-001"):
			if tc.Failure.Message != vs[0].Message || !strings.Contains(tc.Failure.Text, "minimal plan:") ||
				!strings.Contains(tc.Failure.Text, "1. call A/k1 v0") || !strings.Contains(tc.Failure.Text, "history:") {
				t.Errorf("IDEM-001 failure lacks the plan or explanation: %+v", tc.Failure)
			}
		case strings.HasPrefix(tc.Name, "IDEM-002"):
			if !strings.Contains(tc.Failure.Text, "beside the primary finding IDEM-001") {
				t.Errorf("a secondary check does not name the primary: %s", tc.Failure.Text)
			}
		}
	}

	got = junit(t, report.JUnitRun{Target: "t", Inconclusive: "the database went away"})
	for _, tc := range got.Suites[0].Cases {
		if tc.Failure != nil || tc.Skipped == nil || !strings.Contains(tc.Skipped.Message, "database went away") {
			t.Errorf("inconclusive run: %s is %+v %+v", tc.Name, tc.Failure, tc.Skipped)
		}
	}
	got = junit(t, report.JUnitRun{Target: "t"})
	for _, tc := range got.Suites[0].Cases {
		if tc.Failure != nil || tc.Skipped != nil {
			t.Errorf("passing run: %s is %+v %+v", tc.Name, tc.Failure, tc.Skipped)
		}
	}
}

// No password reaches the report file: not from an inconclusive run's
// reason (a service's argv with its database URL), a violation or the
// target.
func TestWriteJUnitMasksPasswords(t *testing.T) {
	cs := cases()[1]
	vs := append(cs.Violations, checks.Violation{Check: checks.MissingEffect,
		Message: "IDEM-002 missing effect: postgres://app:s3cret@db/x", Detail: "password=s3cret"})
	for _, run := range []report.JUnitRun{
		{Target: "http://u:s3cret@127.0.0.1:1/tickets", Failures: []report.JUnitFailure{{Plan: *cs.MinimalPlan, History: cs.History, Violations: vs}}},
		{Target: "t", Inconclusive: `process: replica 1: starting ["./svc" "-database-url" "postgres://app:s3cret@db/x"]: exec failed`},
	} {
		var b bytes.Buffer
		if err := report.WriteJUnit(&b, run); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "s3cret") {
			t.Errorf("the password is in the JUnit report:\n%s", b.String())
		}
		if !strings.Contains(b.String(), "xxxxx") {
			t.Errorf("no masked password in the JUnit report, so this test shows nothing:\n%s", b.String())
		}
	}
}

// The suite is named by Suite, never by the target's host and port, which
// change from run to run: a CI server follows a suite by its name.
func TestJUnitSuiteName(t *testing.T) {
	for _, tc := range []struct {
		run  report.JUnitRun
		want string
	}{
		{report.JUnitRun{Suite: "POST /tickets", Target: "127.0.0.1:33569,127.0.0.1:33570"}, "idemstress POST /tickets"},
		{report.JUnitRun{Target: "http://127.0.0.1:33569/tickets"}, "idemstress"},
	} {
		if got := junit(t, tc.run).Suites[0].Name; got != tc.want {
			t.Errorf("suite of %+v named %q, want %q", tc.run, got, tc.want)
		}
	}
}
