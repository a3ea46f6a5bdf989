package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// The command listens on 127.0.0.1:$PORT without -listen, says so, serves
// a payment, and exits 0 on SIGTERM; a usage mistake exits 2.
func TestBinary(t *testing.T) {
	dbURL := pgtest.NewDatabase(t, cluster) // without PostgreSQL, skip before the build
	bin := filepath.Join(t.TempDir(), "paysvc")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)

	cmd := exec.Command(bin, "-database-url", dbURL)
	cmd.Env = append(os.Environ(), "PORT="+port)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	listening, drained := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				listening <- a
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case got := <-listening:
		if got != addr {
			t.Fatalf("listening on %s, want %s ($PORT)", got, addr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("not listening after 30s")
	}
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Post("http://"+addr+"/v2/merchants/m1/payments", "application/json",
		strings.NewReader(`{"idempotency_key": "k1", "amount_money": {"amount": 1250, "currency": "USD"}, "source_id": "cnon:card-nonce-ok"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create answered %d", resp.StatusCode)
	}
	client.CloseIdleConnections()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		<-drained // Wait closes the pipe: read it to its end first
		exited <- cmd.Wait()
	}()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10s after SIGTERM")
	}

	usage := exec.Command(bin, "-database-url", dbURL, "-bug", "nope")
	out, err := usage.CombinedOutput()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "replay-changed") {
		t.Errorf("-bug nope: %v, %s; want exit 2 listing the modes", err, out)
	}
}
