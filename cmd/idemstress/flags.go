package main

import (
	"flag"
	"io"
	"slices"
)

// parseFlags parses a command's flags. -h, -help and --help ask for the
// command's usage: it goes to stdout (so `idemstress run --help | less`
// works) and the caller ends with exit 0 on flag.ErrHelp; any other flag
// error is printed on stderr, for the caller's exit 2.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if wantsHelp(args) {
		fs.SetOutput(stdout)
	}
	return fs.Parse(args)
}

// wantsHelp reports whether a help flag comes before any "--" in args.
func wantsHelp(args []string) bool {
	end := len(args)
	if i := slices.Index(args, "--"); i >= 0 {
		end = i
	}
	return slices.ContainsFunc(args[:end], func(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "--h" })
}

// parseExit is the exit code of a command whose flags did not parse:
// 0 when they asked for help, 2 otherwise.
func parseExit(err error) int {
	if err == flag.ErrHelp {
		return exitPass
	}
	return exitUsage
}

// sourceFlags are where a command's contract and the service's database
// are: --config and --database-url, the same flags with the same words in
// run, stress, replay and doctor (demo takes --database-url alone).
type sourceFlags struct {
	config      string
	databaseURL string
}

// register declares both flags on fs.
func (s *sourceFlags) register(fs *flag.FlagSet) {
	s.registerConfig(fs)
	s.registerDatabase(fs)
}

func (s *sourceFlags) registerConfig(fs *flag.FlagSet) {
	fs.StringVar(&s.config, "config", "", "contract file (YAML), see docs/contract.md")
}

func (s *sourceFlags) registerDatabase(fs *flag.FlagSet) {
	fs.StringVar(&s.databaseURL, "database-url", "", "PostgreSQL URL of the target's database (default $DATABASE_URL)")
}
