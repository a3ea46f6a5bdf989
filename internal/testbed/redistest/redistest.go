// Package redistest finds the redis-server that tests of Redis
// dependencies start. The README asks a newcomer for Go and PostgreSQL
// only, so without one a test skips and says how to get it; in CI
// (CI=true), which installs it (.ci/run), a missing redis-server fails.
package redistest

import (
	"os"
	"os/exec"
	"testing"
)

// Server is the path of redis-server, or the test skips (fails in CI).
func Server(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p
	}
	const missing = "no redis-server on PATH: apt-get install -y redis-server"
	if os.Getenv("CI") == "true" {
		t.Fatal(missing + " (CI installs it: .ci/run)")
	}
	t.Skip(missing)
	return ""
}
