package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/report"
	"github.com/idemstress/idemstress/stress"
)

// artefacts are what a run leaves behind for later: each failure's
// regression case file and timeline HTML, and a JUnit report of the run.
type artefacts struct {
	cases  string // directory of case files; "" for none
	junit  string // JUnit XML file; "" for none
	config string // the contract file, named in the Go test snippet
	hunt   string // the hunt flags of the run (" --replicas 2"), for the replay command
}

func (a *artefacts) register(fs *flag.FlagSet) {
	fs.StringVar(&a.cases, "cases", "idemstress-cases", "directory to write each failure's regression case file and timeline HTML into (\"\" for none)")
	fs.StringVar(&a.junit, "junit", "", "write a JUnit XML report, one test case per check, to this file")
}

// writeArtefacts writes one failure's case file and its timeline (NAME.json
// and NAME.html) into the cases directory, and tells on stderr how to
// replay it: the command and a Go test.
func writeArtefacts(stderr io.Writer, cfg stress.Config, res *stress.Result, f *stress.Failure, a artefacts) error {
	if a.cases == "" {
		return nil
	}
	c := regress.FromFailure(cfg, res.Seed, f)
	path, err := regress.Write(a.cases, c)
	if err != nil {
		return err
	}
	html := strings.TrimSuffix(path, ".json") + ".html"
	if err := writeTimeline(html, res.Target, f); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "idemstress: %s: wrote %s (timeline: %s); replay it with: idemstress replay %s --config %s%s\n", c.Check.ID, path, html, path, a.config, a.hunt)
	fmt.Fprintf(stderr, "idemstress: or in go test (paths as seen from your test's package directory):\n%s", regress.Snippet(c, a.config, filepath.ToSlash(path)))
	return nil
}

// writeTimeline writes the timeline HTML of a failure to path.
func writeTimeline(path, target string, f *stress.Failure) error {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	if err := report.WriteTimelineHTML(out, target, report.Finding{Plan: f.Plan, History: f.History, Violations: f.Violations}); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeJUnit writes the JUnit report of a run with the given failures.
func writeJUnit(res *stress.Result, failures []*stress.Failure, a artefacts) error {
	if a.junit == "" {
		return nil
	}
	run := report.JUnitRun{Target: res.Target, Seed: res.Seed, Elapsed: res.Total}
	for _, f := range failures {
		run.Findings = append(run.Findings, report.Finding{Plan: f.Plan, History: f.History, Violations: f.Violations})
	}
	if len(res.Outside) > 0 {
		run.Findings = append(run.Findings, report.Finding{Violations: res.Outside})
	}
	if res.Err != nil && len(failures) == 0 {
		run.Inconclusive = res.Err.Error()
	}
	out, err := os.Create(a.junit)
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	if err := report.WriteJUnit(out, run); err != nil {
		out.Close()
		return fmt.Errorf("--junit %s: %w", a.junit, err)
	}
	return out.Close()
}

// failuresOf lists a result's failures, most severe first.
func failuresOf(res *stress.Result) []*stress.Failure {
	if res.Failure == nil {
		return nil
	}
	return []*stress.Failure{res.Failure}
}
