package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// versionCmd prints the module version idemstress was built from, with the
// commit and whether the checkout had changes, as the Go toolchain
// recorded them in the binary (go install, go build, go run alike).
func versionCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && !wantsHelp(args) {
		fmt.Fprintf(stderr, "idemstress version: unexpected argument %q\n", args[0])
		return exitUsage
	}
	if wantsHelp(args) {
		fmt.Fprintln(stdout, "usage: idemstress version\n\nprints the version, commit and Go version idemstress was built with")
		return exitPass
	}
	fmt.Fprintln(stdout, versionLine(debug.ReadBuildInfo()))
	return exitPass
}

// versionLine is "idemstress VERSION (commit REV[, modified], GOVERSION)".
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "idemstress (no build information in this binary)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		rev = "unknown"
	}
	return fmt.Sprintf("idemstress %s (commit %s%s, %s)", version, rev, modified, info.GoVersion)
}
