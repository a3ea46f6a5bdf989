package paysvc_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"

	"github.com/idemstress/idemstress/examples/paysvc"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A payment, its retry, and the key reused with another amount: the retry
// answers the same payment, the reuse is refused with its error code.
func Example() {
	ctx := context.Background()
	// Your own database; here a fresh one on the test cluster.
	cluster, err := pgtest.Shared()
	if err != nil {
		log.Fatal(err)
	}
	url, err := cluster.CreateDatabase(ctx, "example")
	if err != nil {
		log.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if err := paysvc.Migrate(ctx, pool); err != nil {
		log.Fatal(err)
	}
	svc, err := paysvc.New(pool, paysvc.Options{})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()

	for _, amount := range []int{1250, 1250, 999} {
		body := fmt.Sprintf(`{"idempotency_key": "order-17", "amount_money": {"amount": %d, "currency": "USD"}, "source_id": "cnon:card-nonce-ok"}`, amount)
		resp, err := client.Post(srv.URL+"/v2/merchants/acme/payments", "application/json", strings.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		answer, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			log.Fatal(err)
		}
		// created_at varies from run to run; the rest does not.
		fmt.Println(resp.StatusCode, strings.Split(string(answer), `,"created_at"`)[0])
	}
	// Output:
	// 200 {"payment":{"id":"1","merchant_id":"acme","amount_money":{"amount":1250,"currency":"USD"},"source_id":"cnon:card-nonce-ok","status":"COMPLETED"
	// 200 {"payment":{"id":"1","merchant_id":"acme","amount_money":{"amount":1250,"currency":"USD"},"source_id":"cnon:card-nonce-ok","status":"COMPLETED"
	// 400 {"errors":[{"category":"INVALID_REQUEST_ERROR","code":"IDEMPOTENCY_KEY_REUSED","detail":"this idempotency key was already used with a different request; use a new key for a new payment"}]}
}
