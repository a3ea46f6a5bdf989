package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// Row is one target's result, as the demo and run commands print it.
type Row struct {
	Target  string         `json:"target"`
	Verdict checks.Verdict `json:"verdict"`
	Checks  []checks.ID    `json:"checks"`
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
	// Bug names what went wrong: the check and the transition that broke
	// ("IDEM-008 in burst (5xx)"); two bugs of one check differ in it.
	Bug string `json:"bug,omitempty"`
	// NotMinimal: shrinking ran out of budget; MinimalPlan is the smallest
	// failing plan found by then.
	NotMinimal bool `json:"not_minimal,omitempty"`
	// Faults counts the run's faults by kind: planned and fired.
	Faults map[model.Fault]faultkind.FaultCount `json:"faults,omitempty"`
	// Coverage counts the transitions the run's executions made, and
	// CheckStatus says of every check whether it failed, passed, or was
	// not exercised (none of the transitions it needs happened).
	Coverage    coverage.Coverage           `json:"coverage,omitempty"`
	CheckStatus map[checks.ID]checks.Status `json:"check_status,omitempty"`
	// Sightings are the same bug seen again another way (another check,
	// fault or interleaving), listed under its row rather than as rows of
	// their own; Checks lists what they fired too.
	Sightings []Sighting `json:"sightings,omitempty"`
	// ContractError, when set, says the run ended in a contract error
	// (exit 2) after it had found this bug: the bug stays reported, and
	// may follow from the mistake in the contract.
	ContractError string `json:"contract_error,omitempty"`
}

// Sighting is a bug seen again another way: a failure whose check needs
// what the bug's minimal plan needs (Shared, the inputs both send), so it
// is listed under the bug's row.
type Sighting struct {
	Check       checks.ID          `json:"check"`
	Bug         string             `json:"bug,omitempty"`
	Checks      []checks.ID        `json:"checks"`
	MinimalPlan model.Plan         `json:"minimal_plan"`
	Violations  []checks.Violation `json:"violations,omitempty"`
	NotMinimal  bool               `json:"not_minimal,omitempty"`
	Shared      []string           `json:"shared"`
	// Why says in a sentence why it is the bug seen again.
	Why string `json:"why,omitempty"`
}

// line is a sighting as the table and the explanations say it.
func (s Sighting) line() string {
	plan := fmt.Sprintf("%s: %s", plural(len(s.MinimalPlan.Steps), "step"), s.MinimalPlan.Compact())
	if s.NotMinimal {
		plan += " (not minimal)"
	}
	why := s.Why
	if why == "" {
		why = "without the " + strings.Join(s.Shared, " and ") + " it does not show"
	}
	return fmt.Sprintf("%s, %s (%s)", s.Bug, plan, why)
}

// Column is a column of the table that a command adds for itself (the
// demo's layout and expectation), one cell per case, shown after TARGET.
type Column struct {
	Header string
	Cells  []string
}

// WriteTable prints one line per case, then the minimal plan of each caught
// case and any errors, then what faults fired and what each run covered.
func WriteTable(w io.Writer, cases []Row, extra ...Column) error {
	// Targets, errors and explanations may quote the service: shown, never
	// obeyed by the terminal.
	w = PrintableWriter{W: w}
	if err := writeRows(w, cases, extra); err != nil {
		return err
	}
	for _, c := range cases {
		writeCaseDetail(w, c, len(cases) == 1)
	}
	for i, c := range cases {
		if c.ContractError != "" && (i == 0 || cases[i-1].ContractError != c.ContractError) {
			// The bugs of one run share its contract error: said once,
			// after them.
			fmt.Fprintf(w, "\n%s: the run then ended in a contract error (exit 2): %s\n", c.Target, c.ContractError)
		}
	}
	if line := faultLines(cases) + coverageLines(cases); line != "" {
		fmt.Fprint(w, "\n"+line)
	}
	return nil
}

// writeRows prints the table itself: a line per case, the extra columns
// after TARGET, and a line under it for each other sighting of its bug.
func writeRows(w io.Writer, cases []Row, extra []Column) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "TARGET\t"
	for _, col := range extra {
		header += col.Header + "\t"
	}
	fmt.Fprintln(tw, header+"VERDICT\tCHECKS\tMINIMAL PLAN\tSECONDS\tPLANS")
	for i, c := range cases {
		plan := "-"
		if c.MinimalPlan != nil {
			plan = fmt.Sprintf("%s: %s", plural(c.MinimalSteps, "step"), c.MinimalPlan.Compact())
			if c.NotMinimal {
				plan += " (not minimal: shrinking ran out of budget)"
			}
		}
		row := c.Target + "\t"
		for _, col := range extra {
			cell := ""
			if i < len(col.Cells) {
				cell = col.Cells[i]
			}
			row += cell + "\t"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%.2f\t%d\n", row, c.Verdict, IDs(c.Checks), plan, c.Seconds, c.Plans)
		// The same bug seen another way: a line of its own under the
		// row, with as many cells, so the columns stay aligned.
		for _, s := range c.Sightings {
			sub := "  also seen as\t" + strings.Repeat("\t", len(extra))
			fmt.Fprintf(tw, "%s\t%s\t%s: %s\t\t\n", sub, IDs(s.Checks), plural(len(s.MinimalPlan.Steps), "step"), s.MinimalPlan.Compact())
		}
	}
	return tw.Flush()
}

// writeCaseDetail prints what follows the table for one case: its minimal
// plan explained, its seed when it is the only case and passed, the
// violations outside any plan, and its error.
func writeCaseDetail(w io.Writer, c Row, only bool) {
	switch {
	case c.MinimalPlan != nil:
		fmt.Fprintf(w, "\n%s: %s (seed %d)\n", c.Target, c.Violations[0].Message, c.Seed)
		fmt.Fprint(w, indent(Explain(*c.MinimalPlan, c.History, c.Violations)))
		if len(c.Sightings) > 0 {
			fmt.Fprintln(w, "  also seen as (the same bug, not a bug of its own):")
			for _, s := range c.Sightings {
				fmt.Fprintf(w, "    %s\n", s.line())
			}
		}
	case c.Verdict == checks.Pass && c.Seed != 0 && only:
		// A run's pass is repeatable too: the same seed draws the same
		// plans (a table of many, the demo's, leaves it to --json).
		fmt.Fprintf(w, "\n%s: passed (seed %d)\n", c.Target, c.Seed)
	case len(c.Violations) > 0:
		fmt.Fprintf(w, "\n%s: outside any plan (seed %d)\n", c.Target, c.Seed)
		for _, v := range c.Violations {
			fmt.Fprintf(w, "  %s\n      %s\n", v.Message, v.Detail)
		}
	}
	if c.Error != "" {
		fmt.Fprintf(w, "\n%s: %s\n", c.Target, c.Error)
	}
}

// faultLines says, one line per run that planned faults, how many of
// each kind were planned and how many fired:
// "correct: faults fired: crash 12/12, lose-reply 30/30". The bugs of one
// run are cases with the run's counts each: their line is said once.
func faultLines(cases []Row) string {
	var b strings.Builder
	last := ""
	for _, c := range cases {
		if len(c.Faults) == 0 {
			continue
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(c.Faults)) {
			parts = append(parts, fmt.Sprintf("%s %d/%d", k, c.Faults[k].Fired, c.Faults[k].Planned))
		}
		line := fmt.Sprintf("%s: faults fired: %s\n", c.Target, strings.Join(parts, ", "))
		if line != last {
			b.WriteString(line)
		}
		last = line
	}
	return b.String()
}

// PrintableWriter writes to W what it is given with the characters that
// would act on a terminal escaped (model.Printable). Each Write is escaped
// on its own: give it whole lines or strings. Cut, when set, cuts a line
// past model.MaxLine, saying how long it was (model.CutLines): an error
// quoting 200 KB of a service's output or of a contract line must not
// fill a CI log. A JSON document is written whole (EncodeJSON).
type PrintableWriter struct {
	W   io.Writer
	Cut bool
}

// Write reports len(p) on success, as the escaped text is longer.
func (p PrintableWriter) Write(b []byte) (int, error) {
	s := model.Printable(string(b))
	if p.Cut {
		s = model.CutLines(s)
	}
	if _, err := io.WriteString(p.W, s); err != nil {
		return 0, err
	}
	return len(b), nil
}

// EncodeJSON writes v as indented JSON, whole even through a
// PrintableWriter that cuts lines: a line cut inside a document would
// leave it invalid, and its messages were cut before (checks.Violation's
// message and detail, a row's errors), by the same rule.
func EncodeJSON(w io.Writer, v any) error {
	if p, ok := w.(PrintableWriter); ok {
		p.Cut = false
		w = p
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteJSON prints the cases as a JSON array.
func WriteJSON(w io.Writer, cases []Row) error { return EncodeJSON(w, cases) }

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "  " + strings.Join(lines, "\n  ") + "\n"
}

// plural is "1 step", "2 steps".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
