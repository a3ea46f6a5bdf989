package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/internal/testbed/sample"
)

// A demo row is as expected when the correct mode passes and a bug is
// caught by its own check FIRST; caught by another check, or passing, or
// inconclusive, it is not, and the table says so.
func TestDemoExpectations(t *testing.T) {
	caught := func(ids ...checks.ID) report.Row {
		return report.Row{Target: "bug", Verdict: checks.Fail, Checks: ids}
	}
	for _, tc := range []struct {
		name     string
		c        report.Row
		expected string
		want     bool
	}{
		{"correct passes", report.Row{Verdict: checks.Pass}, "pass", true},
		{"correct flagged", caught(checks.DuplicateEffect), "pass", false},
		{"bug caught by its check", caught(checks.DuplicateEffect, checks.UnstableResponse), "IDEM-001", true},
		{"bug caught by another check first", caught(checks.UnstableResponse, checks.DuplicateEffect), "IDEM-001", false},
		{"bug not caught", report.Row{Verdict: checks.Pass}, "IDEM-001", false},
		{"bug inconclusive", report.Row{Verdict: checks.Inconclusive}, "IDEM-001", false},
		{"two bugs caught", caught(checks.TenantLeak, checks.ChangedAccepted), "IDEM-007,IDEM-004", true},
		{"one of two bugs caught", caught(checks.TenantLeak, checks.MissingEffect), "IDEM-007,IDEM-004", false},
	} {
		if got := asExpected(tc.c, tc.expected); got != tc.want {
			t.Errorf("%s: asExpected = %v, want %v", tc.name, got, tc.want)
		}
	}
	var b bytes.Buffer
	rows := []demoRow{
		{Row: caught(checks.DuplicateEffect), Layout: "keys", Expected: "IDEM-001", AsExpected: true},
		{Row: caught(checks.UnstableResponse), Layout: "tagged", Expected: "IDEM-001", AsExpected: false},
	}
	if err := writeDemo(&b, false, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[1], "keys") || !strings.Contains(lines[1], "IDEM-001 (ok)") ||
		!strings.Contains(lines[2], "tagged") || !strings.Contains(lines[2], "IDEM-001 (NOT AS EXPECTED)") {
		t.Errorf("demo table:\n%s", b.String())
	}
}

// The demo's rows hold the webhook's: the correct relay and each webhook
// bug, by name in --modes, each bug expecting the check of sinks that
// names it.
func TestDemoWebhookRows(t *testing.T) {
	all, err := demoModes("")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range sample.WebhookModes() {
		if !slices.Contains(all, mode) {
			t.Errorf("the demo has no row %s", mode)
		}
		got, err := demoModes(mode)
		if err != nil || len(got) != 1 || got[0] != mode {
			t.Errorf("--modes %s: %v %v", mode, got, err)
		}
	}
	for mode, id := range map[string]checks.ID{"webhook-on-replay": checks.DuplicateDelivery, "new-event-id-on-retry": checks.EventIDChanged,
		"webhook-before-commit": checks.PhantomDelivery, "webhook-lost-on-crash": checks.LostDelivery} {
		if sample.Expected[mode] != id {
			t.Errorf("%s expects %s, want %s", mode, sample.Expected[mode], id)
		}
	}
	if !sample.Passes(sample.WebhookRelay) {
		t.Errorf("%s is expected to fail", sample.WebhookRelay)
	}
}
