package main

import (
	"net"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// --db-proxy starts the PostgreSQL proxy on the address given, for a
// service started elsewhere, and says the URL to point it at; an address
// outside loopback is refused as the user's mistake.
func TestDBProxyFlag(t *testing.T) {
	t.Parallel()
	contract, db := serveSample(t, "correct", ticketsvc.LayoutKeys)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	code, stdout, stderr := invoke(t, "run", "--config", contract, "--database-url", db, "--plans", "3", "--seed", "2", "--cases", "", "--db-proxy", addr)
	if code != exitPass || !strings.Contains(stderr, "database proxy at "+addr+" (point the service at postgres://") {
		t.Errorf("exit %d, want a pass that names the proxy's URL\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = invoke(t, "run", "--config", contract, "--database-url", db, "--plans", "3", "--cases", "", "--db-proxy", "0.0.0.0:6543")
	if code != exitUsage || !strings.Contains(stdout+stderr, "not a loopback address") {
		t.Errorf("exit %d, want 2 for a proxy outside loopback\n%s%s", code, stdout, stderr)
	}
}
