package ticketsvc_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

var exampleDatabases int

// exampleDatabaseURL stands for your own database: here, a fresh one on the
// test cluster.
func exampleDatabaseURL() string {
	exampleDatabases++
	cluster, err := pgtest.Shared()
	if err != nil {
		log.Fatal(err)
	}
	url, err := cluster.CreateDatabase(context.Background(), fmt.Sprintf("example_%d", exampleDatabases))
	if err != nil {
		log.Fatal(err)
	}
	return url
}

// A create call and its retry: the retry replays the ticket id.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, exampleDatabaseURL())
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if err := ticketsvc.Migrate(ctx, pool, ticketsvc.LayoutKeys); err != nil {
		log.Fatal(err)
	}
	svc, err := ticketsvc.New(pool, ticketsvc.Options{})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()

	for range 2 {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/tickets",
			strings.NewReader(`{"subject": "Printer offline"}`))
		if err != nil {
			log.Fatal(err)
		}
		req.Header.Set("X-Tenant", "A")
		req.Header.Set("Idempotency-Key", "retry-17")
		resp, err := client.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(resp.StatusCode, strings.TrimSpace(string(body)))
	}
	// Output:
	// 201 {"ticket_id":1}
	// 200 {"ticket_id":1}
}

// A mode whose mistake the unique constraints would hide is migrated for
// with ForBug; the database then holds that schema, and Migrate for a mode
// that needs the other one refuses it.
func ExampleForBug() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, exampleDatabaseURL())
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if err := ticketsvc.Migrate(ctx, pool, ticketsvc.LayoutKeys, ticketsvc.ForBug("check-then-insert")); err != nil {
		log.Fatal(err)
	}
	// process-mutex needs the same schema.
	fmt.Println(ticketsvc.Migrate(ctx, pool, ticketsvc.LayoutKeys, ticketsvc.ForBug("process-mutex")))
	fmt.Println(ticketsvc.Migrate(ctx, pool, ticketsvc.LayoutKeys))
	// Output:
	// <nil>
	// ticketsvc: migrate "keys" layout with unique constraints: the database holds the "keys" layout without unique constraints, but the correct mode needs it with unique constraints: one database holds one schema; migrate a fresh database for the correct mode
}

func ExampleBugs() {
	for _, bug := range ticketsvc.Bugs() {
		fmt.Println(bug)
	}
	// Output:
	// outbox-on-retry
	// no-payload-check
	// global-keys
	// raw-body-fingerprint
	// check-then-insert
	// unique-violation-500
	// process-mutex
	// partial-fingerprint
	// query-in-key
	// trimmed-keys
	// memory-keys
	// non-atomic
	// stuck-in-flight
	// stores-errors
	// complete-after-commit
	// key-tx-first
	// effects-tx-first
	// short-lease
	// hang-on-burst
	// stores-refusals
	// exits-on-db-error
}

func ExampleLayouts() {
	for _, layout := range ticketsvc.Layouts() {
		fmt.Println(layout)
	}
	// Output:
	// keys
	// tagged
}
