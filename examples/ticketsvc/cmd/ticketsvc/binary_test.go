package main

import (
	"bufio"
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

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
)

// TestBinary builds the command, serves one call with it in each -schema
// (and with none) and stops it with SIGTERM, as a process supervisor would.
func TestBinary(t *testing.T) {
	bin := buildBinary(t)
	for _, tt := range []struct {
		name   string
		args   []string
		layout ticketsvc.Layout
	}{
		{"default", nil, ticketsvc.LayoutKeys},
		{"keys", []string{"-schema", "keys"}, ticketsvc.LayoutKeys},
		{"tagged", []string{"-schema", "tagged"}, ticketsvc.LayoutTagged},
	} {
		t.Run(tt.name, func(t *testing.T) { testBinary(t, bin, tt.args, tt.layout) })
	}
}

func testBinary(t *testing.T, bin string, args []string, layout ticketsvc.Layout) {
	dbURL := pgtest.NewDatabase(t, cluster)
	addr := freeAddr(t)
	cmd := exec.Command(bin, append([]string{"-listen", addr, "-database-url", dbURL}, args...)...)
	cmd.Env = append(os.Environ(), "PORT=1") // -listen must win
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The reader owns stderr and logs until exited is closed.
	var (
		exited  = make(chan struct{})
		waitErr error
		logs    strings.Builder
	)
	ready := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				ready <- a
			}
			logs.WriteString(sc.Text() + "\n")
		}
		io.Copy(io.Discard, stderr)
		waitErr = cmd.Wait()
	}()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	})

	select {
	case got := <-ready:
		if got != addr {
			t.Fatalf("listening on %s, want %s", got, addr)
		}
	case <-exited:
		t.Fatalf("exited before listening: %v\n%s", waitErr, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("not listening after 30s")
	}

	postTicket(t, "http://"+addr+"/tickets")
	// The schema is the flag's: Migrate of that layout accepts the
	// database, and the service wrote there.
	migrate(t, dbURL, layout)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("after SIGTERM: %v\n%s", waitErr, logs.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still running 5s after SIGTERM")
	}
}

func buildBinary(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil && os.Getenv("GOROOT") != "" {
		goBin, err = filepath.Join(os.Getenv("GOROOT"), "bin", "go"), nil
	}
	if err != nil {
		t.Fatalf("go command not found to build the binary: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "ticketsvc")
	out, err := exec.CommandContext(t.Context(), goBin, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func postTicket(t *testing.T, url string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"subject": "Printer offline"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Tenant", "A")
	req.Header.Set("Idempotency-Key", "retry-17")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated || !strings.HasPrefix(string(body), `{"ticket_id":`) {
		t.Fatalf("POST %s: %d %s (%v); want 201 with a ticket_id", url, resp.StatusCode, body, err)
	}
}
