package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/model"
)

// Case is one target's result, as the demo and run commands print it.
type Case struct {
	Target string `json:"target"`
	// Layout is the sample service's schema layout (demo only).
	Layout string `json:"layout,omitempty"`
	// Verdict: "pass", "caught" (violations found), or "inconclusive".
	Verdict string `json:"verdict"`
	// Expected is what the demo expects ("pass" or a check ID); "" outside the demo.
	Expected string      `json:"expected,omitempty"`
	Checks   []checks.ID `json:"checks"`
	// MinimalSteps and MinimalCalls measure the shrunk plan (0 on a pass).
	MinimalSteps int         `json:"minimal_steps"`
	MinimalCalls int         `json:"minimal_calls"`
	MinimalPlan  *model.Plan `json:"minimal_plan,omitempty"`
	// Seconds is the time to detect the first failure, or the whole run on a pass.
	Seconds       float64            `json:"seconds"`
	ShrinkSeconds float64            `json:"shrink_seconds"`
	Plans         int                `json:"plans"`
	Seed          uint64             `json:"seed"`
	Violations    []checks.Violation `json:"violations,omitempty"`
	History       model.History      `json:"history,omitempty"`
	Error         string             `json:"error,omitempty"`
	// Flaky: the minimal plan did not fail again the same way when rerun.
	Flaky bool `json:"flaky,omitempty"`
}

// AsExpected reports whether a demo case came out as the demo expects: the
// correct target passes, and each bug is caught by its check (among others).
func (c Case) AsExpected() bool {
	if c.Expected == "pass" {
		return c.Verdict == "pass"
	}
	return c.Verdict == "caught" && len(c.Checks) > 0 && string(c.Checks[0]) == c.Expected
}

// WriteTable prints one line per case, then the minimal plan of each caught
// case and any errors.
func WriteTable(w io.Writer, cases []Case) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	withExpected, withLayout := false, false
	for _, c := range cases {
		withExpected = withExpected || c.Expected != ""
		withLayout = withLayout || c.Layout != ""
	}
	header := "TARGET\t"
	if withLayout {
		header += "LAYOUT\t"
	}
	header += "VERDICT\t"
	if withExpected {
		header += "EXPECTED\t"
	}
	fmt.Fprintln(tw, header+"CHECKS\tMINIMAL PLAN\tSECONDS\tPLANS")
	for _, c := range cases {
		plan := "-"
		if c.MinimalPlan != nil {
			plan = fmt.Sprintf("%d steps: %s", c.MinimalSteps, Compact(*c.MinimalPlan))
		}
		expected := ""
		if withExpected {
			mark := "ok"
			if !c.AsExpected() {
				mark = "NOT AS EXPECTED"
			}
			expected = c.Expected + " (" + mark + ")\t"
		}
		layout := ""
		if withLayout {
			layout = c.Layout + "\t"
		}
		fmt.Fprintf(tw, "%s\t%s%s\t%s%s\t%s\t%.2f\t%d\n", c.Target, layout, c.Verdict, expected, IDs(c.Checks), plan, c.Seconds, c.Plans)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range cases {
		switch {
		case c.MinimalPlan != nil:
			fmt.Fprintf(w, "\n%s: %s (seed %d)\n", c.name(), c.Violations[0].Message, c.Seed)
			fmt.Fprint(w, indent(Explain(*c.MinimalPlan, c.History, c.Violations)))
		case len(c.Violations) > 0:
			fmt.Fprintf(w, "\n%s: outside any plan (seed %d)\n", c.name(), c.Seed)
			for _, v := range c.Violations {
				fmt.Fprintf(w, "  %s\n      %s\n", v.Message, v.Detail)
			}
		}
		if c.Error != "" {
			fmt.Fprintf(w, "\n%s: %s\n", c.name(), c.Error)
		}
	}
	return nil
}

func (c Case) name() string {
	if c.Layout == "" {
		return c.Target
	}
	return c.Target + " (" + c.Layout + " layout)"
}

// WriteJSON prints the cases as a JSON array.
func WriteJSON(w io.Writer, cases []Case) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cases)
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "  " + strings.Join(lines, "\n  ") + "\n"
}

// Compact renders a plan on one line: steps separated by "; ", the calls
// of a step by " | ", each call as tenant/key and payload variant.
func Compact(p model.Plan) string {
	steps := make([]string, len(p.Steps))
	for i, st := range p.Steps {
		calls := make([]string, len(st.Calls))
		for j, c := range st.Calls {
			key := c.Key
			if c.NoKey {
				key = "(no key)"
			}
			calls[j] = fmt.Sprintf("%s/%s v%d", c.Tenant, key, c.Variant)
			if c.Encoding != 0 {
				calls[j] += fmt.Sprintf("e%d", c.Encoding)
			}
		}
		steps[i] = strings.Join(calls, " | ")
		if st.Kind != model.StepCall {
			steps[i] = string(st.Kind) + " " + steps[i]
		}
	}
	return strings.Join(steps, "; ")
}
