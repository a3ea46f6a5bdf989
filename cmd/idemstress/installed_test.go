package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
)

// An installed idemstress runs its demo anywhere: from a directory outside
// any checkout, with no Go toolchain on PATH, the rows run as processes are
// served by the binary itself (idemstress sample-service). It used to build
// the sample from this module's source and fail with "go.mod file not
// found".
func TestDemoOutsideACheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemstress and runs the sample as its processes")
	}
	bin := filepath.Join(t.TempDir(), "idemstress")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building idemstress: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "demo", "--modes", "memory-keys", "--plans", "30", "--json")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + t.TempDir(), "DATABASE_URL=" + pgtest.Cluster(t, cluster).URL()}
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("demo: %v\n%s%s", err, out, stderr)
	}
	if !strings.Contains(string(out), `"as_expected": true`) || !strings.Contains(string(out), `"target": "memory-keys"`) {
		t.Fatalf("demo row not as expected:\n%s", out)
	}
}
