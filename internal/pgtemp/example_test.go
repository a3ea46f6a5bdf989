//go:build unix

package pgtemp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/pgtemp"
)

// A test or a run without --database-url starts a throwaway cluster and
// gives each target its own database.
func Example() {
	ctx := context.Background()
	cluster, err := pgtemp.Start(ctx, pgtemp.Options{})
	if err != nil {
		log.Fatal(err) // errors.Is(err, pgtemp.ErrNoBinaries): suggest --database-url
	}
	defer cluster.Close()

	url, err := cluster.CreateDatabase(ctx, "tickets")
	if err != nil {
		log.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)

	var db string
	if err := conn.QueryRow(ctx, "select current_database()").Scan(&db); err != nil {
		log.Fatal(err)
	}
	fmt.Println(db)
	// Output: tickets
}
