package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestBinary builds the command, serves one call with it in each -schema
// (and with none) and stops it with SIGTERM, as a process supervisor would.
func TestBinary(t *testing.T) {
	pgtest.Cluster(t, cluster) // without PostgreSQL, skip before the build
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
	p := startBinary(t, bin, append([]string{"-listen", addr, "-database-url", dbURL}, args...), "PORT=1") // -listen must win
	if p.addr != addr {
		t.Fatalf("listening on %s, want %s", p.addr, addr)
	}
	postTicket(t, "http://"+addr+"/tickets")
	// The schema is the flag's: Migrate of that layout accepts the
	// database, and the service wrote there.
	migrate(t, dbURL, layout)
	p.stop(t)
}

// process is a running ticketsvc command.
type process struct {
	cmd   *exec.Cmd
	ready chan string // its "listening on" address
	addr  string      // set by waitListening
	// exited is closed once the command has exited; then waitErr and logs
	// are final.
	exited  chan struct{}
	waitErr error
	logs    strings.Builder
}

// startBinary starts bin and waits until it says it is listening.
func startBinary(t *testing.T, bin string, args []string, env ...string) *process {
	t.Helper()
	p := launch(t, bin, args, env...)
	p.waitListening(t)
	return p
}

// launch starts bin with args and the extra environment. The process is
// killed at the end of the test unless it has exited.
func launch(t *testing.T, bin string, args []string, env ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), ready: make(chan string, 1), exited: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The reader owns stderr and logs until exited is closed.
	go func() {
		defer close(p.exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				p.ready <- a
			}
			p.logs.WriteString(sc.Text() + "\n")
		}
		io.Copy(io.Discard, stderr)
		p.waitErr = p.cmd.Wait()
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// waitListening waits until the process says it is listening, and notes
// where.
func (p *process) waitListening(t *testing.T) {
	t.Helper()
	select {
	case p.addr = <-p.ready:
	case <-p.exited:
		t.Fatalf("exited before listening: %v\n%s", p.waitErr, p.logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("not listening after 30s")
	}
}

// stop sends SIGTERM, as a process supervisor would, and expects a clean
// exit within 5s.
func (p *process) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
		if p.waitErr != nil {
			t.Fatalf("after SIGTERM: %v\n%s", p.waitErr, p.logs.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still running 5s after SIGTERM")
	}
}

// TestBinaryReplicas starts two processes of one mode over one fresh
// database at once, as a process target running replicas does: both
// migrate and serve, one on -listen and one on $PORT. Then two calls of one
// action, one to each, race with tickets stalled until both have settled:
// the correct mode creates once, while process-mutex, whose lock lives in
// each process, creates twice.
func TestBinaryReplicas(t *testing.T) {
	pgtest.Cluster(t, cluster) // without PostgreSQL, skip before the build
	bin := buildBinary(t)
	for _, tt := range []struct {
		bug     string
		want    []int // the two answers, sorted
		tickets int
	}{
		{"", []int{201, 409}, 1},
		{"process-mutex", []int{201, 201}, 2},
	} {
		t.Run("bug="+tt.bug, func(t *testing.T) {
			dbURL := pgtest.NewDatabase(t, cluster)
			listen, port := freeAddr(t), freeAddr(t)
			_, portNum, err := net.SplitHostPort(port)
			if err != nil {
				t.Fatal(err)
			}
			// Both start before either is waited for, so they migrate the
			// empty database at the same time.
			procs := []*process{
				launch(t, bin, []string{"-database-url", dbURL, "-bug", tt.bug, "-listen", listen}, "PORT="+portNum),
				launch(t, bin, []string{"-database-url", dbURL, "-bug", tt.bug}, "PORT="+portNum),
			}
			for _, p := range procs {
				p.waitListening(t)
			}
			if procs[0].addr != listen || procs[1].addr != port {
				t.Fatalf("listening on %s and %s, want %s (-listen) and %s ($PORT)", procs[0].addr, procs[1].addr, listen, port)
			}
			pool := connect(t, dbURL)
			got := stalledRace(t, pool, "http://"+procs[0].addr+"/tickets", "http://"+procs[1].addr+"/tickets")
			if !slices.Equal(got, tt.want) {
				t.Fatalf("answers %v, want %v", got, tt.want)
			}
			var tickets int
			if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM tickets`).Scan(&tickets); err != nil || tickets != tt.tickets {
				t.Fatalf("%d tickets (err %v), want %d", tickets, err, tt.tickets)
			}
			for _, p := range procs {
				p.stop(t)
			}
		})
	}
}

// stalledRace posts one action once to each URL at once while tickets is
// locked against writes, waits (10s at most) until each call has either
// answered or waits for that lock, releases it, and returns the statuses,
// sorted.
func stalledRace(t *testing.T, pool *pgxpool.Pool, urls ...string) []int {
	t.Helper()
	ctx := t.Context()
	stall, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stall.Rollback(context.Background())
	if _, err := stall.Exec(ctx, `LOCK TABLE tickets IN EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	var (
		statuses = make([]int, len(urls))
		errs     = make([]error, len(urls))
		answered atomic.Int32
		wg       sync.WaitGroup
	)
	for i, url := range urls {
		wg.Go(func() {
			statuses[i], errs[i] = post(ctx, url, "race")
			answered.Add(1)
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		err := stall.QueryRow(ctx, `SELECT count(*) FROM pg_locks
			WHERE locktype = 'relation' AND NOT granted AND relation = 'tickets'::regclass
				AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&waiting)
		if err != nil {
			stall.Rollback(context.Background())
			wg.Wait()
			t.Fatal(err)
		}
		if int(answered.Load())+waiting == len(urls) {
			break
		}
		if time.Now().After(deadline) {
			stall.Rollback(context.Background())
			wg.Wait()
			t.Fatalf("race not settled within 10s: %d answered, %d waiting", answered.Load(), waiting)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := stall.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("POST %s: %v", urls[i], err)
		}
	}
	slices.Sort(statuses)
	return statuses
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

// post creates a ticket for tenant A under key, and returns the status.
func post(ctx context.Context, url, key string) (int, error) {
	client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"subject": "Printer offline"}`))
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Tenant", "A")
	req.Header.Set("Idempotency-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
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
