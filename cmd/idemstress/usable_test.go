package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
)

// A contract whose requests the service never accepts exits 2 quoting the
// first answer, not 1 with the service blamed; a target that is not there
// exits 3.
func TestRunRequestNeverAccepted(t *testing.T) {
	contract, dbURL := serveSample(t, sample.Correct, ticketsvc.LayoutKeys)
	yaml, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	wrongPath := filepath.Join(t.TempDir(), "wrong-path.yaml")
	if err := os.WriteFile(wrongPath, []byte(strings.Replace(string(yaml), "/tickets\n", "/ticket\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := invoke(t, "run", "--config", wrongPath, "--database-url", dbURL, "--seed", "5")
	if code != exitUsage || !strings.Contains(stderr, "no call of the run was answered created or replayed") || !strings.Contains(stderr, "was 404 with body") {
		t.Errorf("wrong path: exit %d\n%s%s", code, stdout, stderr)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	dead := filepath.Join(t.TempDir(), "dead.yaml")
	if err := os.WriteFile(dead, []byte(strings.Replace(string(ticketsvc.Contract), "127.0.0.1:8080", closed, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = invoke(t, "run", "--config", dead, "--database-url", dbURL)
	if code != exitInconclusive || !strings.Contains(stdout, "unreachable") {
		t.Errorf("unreachable port: exit %d\n%s%s", code, stdout, stderr)
	}
}
