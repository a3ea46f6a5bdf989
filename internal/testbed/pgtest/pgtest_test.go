package pgtest

import (
	"context"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/pgtemp"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { Main(m, &cluster) }

// Main starts no cluster before the tests: the first test that asks for
// one starts it, and every later one gets the same cluster. This is the
// package's only test that asks, so it runs first whatever the order.
func TestClusterStartsOnFirstUse(t *testing.T) {
	if sharedC != nil {
		t.Fatal("a cluster was started before any test asked for one")
	}
	c := Cluster(t, cluster)
	if again := Cluster(t, cluster); again != c {
		t.Fatalf("second Cluster call got another cluster (%s, first %s)", again.Dir(), c.Dir())
	}
	if cluster != nil {
		t.Fatal("Main's variable was filled while tests run (a data race with parallel tests)")
	}
	url := NewDatabase(t, cluster)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var port string
	if err := conn.QueryRow(t.Context(), "SHOW port").Scan(&port); err != nil {
		t.Fatal(err)
	}
	if port != strconv.Itoa(c.Port()) {
		t.Fatalf("NewDatabase's database is on port %s, the binary's cluster on %d", port, c.Port())
	}
}
