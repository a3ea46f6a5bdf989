package pgproxy_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// TestCloseWithOpenSessions: Close ends idle, busy and held sessions and
// leaves no goroutine of the proxy behind; the server rolls back.
func TestCloseWithOpenSessions(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c := pgtest.Cluster(t, cluster)
	direct := pgtest.NewDatabase(t, cluster)
	reached := make(chan struct{})
	p, err := pgproxy.Start(pgproxy.Options{
		Server: fmt.Sprintf("127.0.0.1:%d", c.Port()),
		At: func(pt pgproxy.Point) pgproxy.Action {
			if pt.Kind == pgproxy.BeforeCommit {
				close(reached)
				return pgproxy.Hold(nil)
			}
			return pgproxy.Continue
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	url, err := p.URL(direct)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	idle, held := connect(t, url), connect(t, url)
	mustExec(t, idle, "CREATE TABLE t (k text)")
	call := p.Tie("A/k1", []byte("key-1"))
	done := make(chan error, 1)
	go func() { _, commit := twoStatements(t, held, pgx.QueryExecModeCacheStatement); done <- commit }()
	waitFor(t, reached)

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Error("the held commit succeeded after Close")
	}
	if err := idle.Ping(ctx); err == nil {
		t.Error("an idle session still serves after Close")
	}
	call.Untie()
	waitCount(t, direct, "t", 0)
	if _, err := p.URL(direct); err != nil {
		t.Error("URL after Close:", err)
	}
	idle.Close(ctx)
	held.Close(ctx)
	if err := p.Close(); err != nil && !errors.Is(err, context.Canceled) {
		t.Error("second Close:", err)
	}
}
