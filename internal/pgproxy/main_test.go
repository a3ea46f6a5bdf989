package pgproxy_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// fixture is a new database, a proxy in front of its cluster and the URL
// that reaches the database through it.
type fixture struct {
	direct string // the database, not through the proxy
	url    string // the database through the proxy
	proxy  *pgproxy.Proxy
	events *recorder
}

func newFixture(t *testing.T, at func(pgproxy.Point) pgproxy.Action) *fixture {
	t.Helper()
	c := pgtest.Cluster(t, cluster)
	direct := pgtest.NewDatabase(t, cluster)
	rec := &recorder{}
	p, err := pgproxy.Start(pgproxy.Options{
		Server:  fmt.Sprintf("127.0.0.1:%d", c.Port()),
		At:      at,
		OnEvent: rec.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	url, err := p.URL(direct)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{direct: direct, url: url, proxy: p, events: rec}
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// count is the number of rows of table, read directly from the server.
func count(t *testing.T, url, table string) int {
	t.Helper()
	conn := connect(t, url)
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

type recorder struct {
	mu     sync.Mutex
	events []pgproxy.Event
}

func (r *recorder) add(e pgproxy.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// of is the kinds of the events of call, in order.
func (r *recorder) of(call string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Call == call {
			out = append(out, e.Kind.String())
		}
	}
	return out
}

func (r *recorder) all() []pgproxy.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]pgproxy.Event(nil), r.events...)
}

// steps renders a trace as "kind index" strings.
func steps(tr []pgproxy.Step) []string {
	var out []string
	for _, s := range tr {
		out = append(out, fmt.Sprintf("%s %d", s.Kind, s.Index))
	}
	return out
}
