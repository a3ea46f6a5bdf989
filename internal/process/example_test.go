package process_test

import (
	"context"
	"fmt"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/process"
)

// A process target runs the service as replicas idemstress can restart,
// crash and pause; an HTTP target spreads calls over them.
func ExampleStart() {
	ctx := context.Background()
	procs, err := process.Start(ctx, process.Spec{
		Command:  []string{"./ticketsvc", "-listen", "127.0.0.1:{port}", "-db", "{database_url}"},
		Replicas: 2,
	}, "postgres://postgres@127.0.0.1:5432/tickets")
	if err != nil {
		fmt.Println(err) // names the replica and quotes the end of its output
		return
	}
	defer procs.Stop()

	tgt, err := client.NewHTTP(client.HTTPSpec{URL: "http://service/tickets", ID: "/id",
		Headers: map[string]string{"Idempotency-Key": "{{key}}"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	spread := tgt.WithHosts(procs.Addrs())
	defer spread.CloseIdleConnections()
	first, _ := spread.Do(ctx, client.Request{Key: "k1", Replica: 0})
	if err := procs.Crash(ctx, 0); err != nil { // SIGKILL, then back on the same port
		fmt.Println(err)
		return
	}
	again, _ := spread.Do(ctx, client.Request{Key: "k1", Replica: 1})
	fmt.Println(first.ID == again.ID)
}
