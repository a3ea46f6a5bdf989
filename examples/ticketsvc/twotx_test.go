package ticketsvc_test

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/idemstress/idemstress/internal/pgproxy"
)

// keyTxFirstScenario: the original dies right after its first commit; in
// key-tx-first that commit is its key, in progress, and the retry answers
// in_flight with nothing created (and for good: nothing in the database
// will ever release it).
func keyTxFirstScenario(e *env) (bool, string) {
	retry := e.diesAfterFirstCommit("A", "crash-key-1", `{"subject":"x"}`)
	tickets, _, keys := e.counts()
	shown := retry.status == http.StatusConflict && tickets == 0 && keys == 1
	return shown, fmt.Sprintf("retry %v, tickets %d, keys %d", retry, tickets, keys)
}

// effectsTxFirstScenario: the original dies right after its first commit;
// in effects-tx-first that commit is its ticket and notification, without
// the key, and the retry creates a second ticket.
func effectsTxFirstScenario(e *env) (bool, string) {
	retry := e.diesAfterFirstCommit("A", "crash-key-1", `{"subject":"x"}`)
	tickets, _, _ := e.counts()
	shown := retry.status == http.StatusCreated && tickets == 2
	return shown, fmt.Sprintf("retry %v, tickets %d", retry, tickets)
}

// diesAfterFirstCommit sends a call to a replica of e whose database is
// reached through a PostgreSQL proxy; once the call's first transaction
// has committed, before the replica sees the commit answered, the proxy is
// closed, ending every session of the replica's as a SIGKILL would (and
// nothing the replica does after reaches the database). The same call is
// then sent to e, another process of the service, and its answer
// returned. key must be found in no SQL text of the service's.
func (e *env) diesAfterFirstCommit(tenant, key, body string) answer {
	e.t.Helper()
	ctx := e.t.Context()
	cc := e.pool.Config().ConnConfig
	committed := make(chan struct{})
	var once sync.Once
	p, err := pgproxy.Start(pgproxy.Options{
		Server: net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))),
		At: func(pt pgproxy.Point) pgproxy.Action {
			if pt.Kind == pgproxy.AfterCommit && pt.Tx == 1 {
				once.Do(func() { close(committed) })
				return pgproxy.Hold(nil) // until the proxy closes
			}
			return pgproxy.Continue
		},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	defer p.Close()
	url, err := p.URL(e.pool.Config().ConnString())
	if err != nil {
		e.t.Fatal(err)
	}
	doomed := serve(e.t, connect(e.t, url), e.opts)
	call := p.Tie("original", []byte(key))
	defer call.Untie()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = doomed.post(ctx, tenant, key, body)
	}()
	select {
	case <-committed:
	case <-done:
		e.t.Fatal("the original was answered without passing its first commit")
	}
	if err := p.Close(); err != nil {
		e.t.Fatal(err)
	}
	<-done
	// The server ends the original's backends once it reads their
	// connections' end: until then a lock one of them holds is held.
	for range 1000 {
		var n int
		if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil {
			e.t.Fatal(err)
		}
		if n == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return e.mustPost(tenant, key, body)
}
