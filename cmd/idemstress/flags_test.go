package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// Every command's --help (and -h) prints its flags on stdout and exits 0:
// asking for help is not a usage error.
func TestHelpFlags(t *testing.T) {
	for _, cmd := range []string{"demo", "run", "stress", "merge", "replay", "doctor", "version"} {
		for _, flag := range []string{"--help", "-h"} {
			t.Run(cmd+flag, func(t *testing.T) {
				code, stdout, stderr := invoke(t, cmd, flag)
				if code != exitPass {
					t.Fatalf("exit %d, want 0\nstdout %q\nstderr %q", code, stdout, stderr)
				}
				if !strings.Contains(stdout, "sage") {
					t.Errorf("stdout has no usage: %q (stderr %q)", stdout, stderr)
				}
			})
		}
	}
	// A flag after "--" is an argument, not a request for help.
	if wantsHelp([]string{"--", "--help"}) || !wantsHelp([]string{"--config", "c.yaml", "-help"}) {
		t.Error("wantsHelp reads past --, or misses -help")
	}
	// A bad flag is still a usage error.
	if code, _, _ := invoke(t, "merge", "--frobnicate"); code != exitUsage {
		t.Errorf("merge --frobnicate: exit %d, want %d", code, exitUsage)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := invoke(t, "version")
	if code != exitPass || !strings.HasPrefix(stdout, "idemstress ") {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if code, _, _ := invoke(t, "version", "extra"); code != exitUsage {
		t.Errorf("version extra: exit %d, want %d", code, exitUsage)
	}
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{info, true, "idemstress v0.3.0 (commit 0123456789ab, modified, go1.26.8)"},
		{&debug.BuildInfo{GoVersion: "go1.26.8"}, true, "idemstress (devel) (commit unknown, go1.26.8)"},
		{nil, false, "idemstress (no build information in this binary)"},
	} {
		if got := versionLine(tc.info, tc.ok); got != tc.want {
			t.Errorf("versionLine = %q, want %q", got, tc.want)
		}
	}
}
