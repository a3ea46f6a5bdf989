package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/idemstress/idemstress/internal/atomicfile"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// artefacts are what a run leaves behind for later: each failure's
// regression case file and timeline HTML, and a JUnit report of the run.
type artefacts struct {
	cases  string // directory of case files; "" for none
	junit  string // JUnit XML file; "" for none
	config string // the contract file, named in the Go test snippet
}

func (a *artefacts) register(fs *flag.FlagSet) {
	fs.StringVar(&a.cases, "cases", "idemstress-cases", "directory to write each failure's regression case file and timeline HTML into (\"\" for none)")
	fs.StringVar(&a.junit, "junit", "", "write a JUnit XML report, one test case per check, to this file")
}

// writeArtefacts writes one failure's case file and its timeline (NAME.json
// and NAME.html) into the cases directory, and tells on stderr how to
// replay it: the command and a Go test. The case file records the run's
// replicas, sync and db-stall, so neither needs flags to replay under them.
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
	fmt.Fprintf(stderr, "idemstress: %s: wrote %s (timeline: %s); replay it with: idemstress replay %s --config %s\n", c.Check.ID, path, html, shellWord(path), shellWord(a.config))
	// go test opens files from the test's package directory, not from
	// where run was started: the snippet names them by absolute path.
	config, err := filepath.Abs(a.config)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "idemstress: or in go test:\n%s", regress.Snippet(c, filepath.ToSlash(config), filepath.ToSlash(abs)))
	return nil
}

// writeTimeline writes the timeline HTML of a failure to path, replacing
// it whole (written beside it, then renamed), as regress.Write does a case
// file: shards sharing a volume never tear it.
func writeTimeline(path, target string, f *stress.Failure) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		return report.WriteTimelineHTML(w, target, report.JUnitFailure{Plan: f.Plan, History: f.History, Violations: f.Violations})
	})
	if err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

// writeJUnit writes the JUnit report of a run of cfg with the given
// failures.
func writeJUnit(cfg stress.Config, res *stress.Result, failures []*stress.Failure, a artefacts) error {
	if a.junit == "" {
		return nil
	}
	run := report.JUnitRun{Suite: suiteName(cfg, a.config), Target: res.Target, Seed: res.Seed, Elapsed: res.Total, Coverage: res.Coverage}
	for _, f := range failures {
		jf := report.JUnitFailure{Plan: f.Plan, History: f.History, Violations: f.Violations}
		for _, s := range f.Sightings {
			jf.Sightings = append(jf.Sightings, s.Report())
		}
		run.Failures = append(run.Failures, jf)
	}
	// A check only a sighting fired fails too, its text naming the bug.
	for _, f := range failures {
		for _, s := range f.Sightings {
			run.Failures = append(run.Failures, report.JUnitFailure{Plan: s.Plan, History: s.History, Violations: s.Violations, SightingOf: f.Bug})
		}
	}
	if len(res.Outside) > 0 {
		run.Failures = append(run.Failures, report.JUnitFailure{Violations: res.Outside})
	}
	if res.Err != nil && len(failures) == 0 {
		run.Inconclusive = res.Err.Error()
	}
	if err := atomicfile.Write(a.junit, func(w io.Writer) error { return report.WriteJUnit(w, run) }); err != nil {
		return fmt.Errorf("--junit %s: %w", a.junit, err)
	}
	return nil
}

// refused is the exit code of a run refused before it started, for a flag
// or contract error already printed: it still writes the --junit report,
// every check skipped with the reason, as for a run that could not start,
// so CI never reads a stale or missing one. The report's file and the
// contract's are read from args, which flag parsing may have stopped short
// of; cfg is the contract as far as it was read.
func refused(stderr io.Writer, args []string, cfg stress.Config, reason error) int {
	if errors.Is(reason, flag.ErrHelp) {
		return exitPass // -h asks for the usage, not for a run
	}
	a := artefacts{junit: flagArg(args, "junit"), config: flagArg(args, "config")}
	res := &stress.Result{Target: cfg.HTTP.URL, Err: fmt.Errorf("refused: %w", reason)}
	if err := writeJUnit(cfg, res, nil, a); err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
	}
	return exitUsage
}

// flagArg is the value of flag name in a command line (-name V, --name V,
// -name=V, --name=V; the last one given, as package flag takes it), up to
// a "--" that ends the flags.
func flagArg(args []string, name string) (value string) {
	for i, arg := range args {
		if arg == "--" {
			break
		}
		f, v, hasValue := strings.Cut(arg, "=")
		if f != "-"+name && f != "--"+name {
			continue
		}
		if hasValue {
			value = v
		} else if i+1 < len(args) {
			value = args[i+1]
		}
	}
	return value
}

// suiteName names the JUnit testsuite of a run of cfg after what it tests,
// the same on every run: the method and URL path of the contract's target
// ("POST /tickets"), not its host and port (replicas get new ports every
// run); the contract file's name when cfg has no URL (it could not be
// read).
func suiteName(cfg stress.Config, config string) string {
	u, err := url.Parse(cfg.HTTP.URL)
	if cfg.HTTP.URL == "" || err != nil {
		return config
	}
	return cmp.Or(strings.ToUpper(cfg.HTTP.Method), "POST") + " " + cmp.Or(u.EscapedPath(), "/")
}
