package pgproxy_test

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/pgproxy"
)

// A crash at a point: hold the call's session before its COMMIT, then
// kill the replica (here: close its connection); the server rolls back.
// Without an Output comment the example is compiled, not run (it needs a
// server).
func Example() {
	databaseURL := "postgres://postgres@127.0.0.1:5432/app?sslmode=disable"
	reached := make(chan struct{})
	p, err := pgproxy.Start(pgproxy.Options{
		Server: "127.0.0.1:5432",
		At: func(pt pgproxy.Point) pgproxy.Action {
			if pt.Kind == pgproxy.BeforeCommit {
				close(reached)
				return pgproxy.Hold(nil) // until the session ends
			}
			return pgproxy.Continue
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	url, _ := p.URL(databaseURL) // what the service is started with
	call := p.Tie("A/k1", []byte("key-1"))
	defer call.Untie()

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		fmt.Println(err)
		return
	}
	go func() {
		<-reached
		conn.PgConn().Conn().Close() // the replica is SIGKILLed here
	}()
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO tickets (request_key) VALUES ($1)", "key-1")
		return err
	})
	fmt.Println(err != nil, call.Trace())
}
