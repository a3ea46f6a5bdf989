package inittest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// charges is a service whose answers carry its own kind of ID: answer
// renders the row's id and psp_reference as the API spells its ID. Its
// key records point at the charge's id, its outbox rows at its
// psp_reference.
func charges(t *testing.T, pool *pgxpool.Pool, answer func(id int64, psp string) any) http.Handler {
	t.Helper()
	_, err := pool.Exec(t.Context(), `
		CREATE TABLE charges (id bigserial PRIMARY KEY, merchant text NOT NULL, idem_key text NOT NULL,
			psp_reference text NOT NULL UNIQUE, amount bigint NOT NULL, UNIQUE (merchant, idem_key));
		CREATE TABLE charge_keys (merchant text NOT NULL, idem_key text NOT NULL, charge_id bigint NOT NULL REFERENCES charges (id),
			PRIMARY KEY (merchant, idem_key));
		CREATE TABLE charge_events (id bigserial PRIMARY KEY, merchant text NOT NULL, idem_key text NOT NULL,
			psp_reference text NOT NULL REFERENCES charges (psp_reference))`)
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		merchant, key := r.Header.Get("X-Merchant"), r.Header.Get("Idempotency-Key")
		var body struct{ Amount int64 }
		if key == "" || json.NewDecoder(r.Body).Decode(&body) != nil {
			w.WriteHeader(400)
			return
		}
		var id int64
		var psp string
		// one statement: the charge, its key record and its event, or the charge already there
		err := pool.QueryRow(r.Context(), `WITH c AS (
				INSERT INTO charges (merchant, idem_key, psp_reference, amount)
				VALUES ($1, $2, md5($1 || $2), $3) ON CONFLICT (merchant, idem_key) DO NOTHING RETURNING id, psp_reference),
			k AS (INSERT INTO charge_keys SELECT $1, $2, id FROM c),
			e AS (INSERT INTO charge_events (merchant, idem_key, psp_reference) SELECT $1, $2, psp_reference FROM c)
			SELECT id, psp_reference FROM c UNION ALL
			SELECT id, psp_reference FROM charges WHERE merchant = $1 AND idem_key = $2 AND NOT EXISTS (SELECT FROM c)`,
			merchant, key, body.Amount).Scan(&id, &psp)
		if err != nil {
			w.WriteHeader(500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer(id, psp))
	})
}

// initDraft runs init against h and returns the draft; doctor, run on it
// by init, must find nothing to fix.
func initDraft(t *testing.T, h http.Handler, dbURL string) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	code, stdout, stderr := invoke(t, "init", "--out", contract, "--database-url", dbURL, "--url", srv.URL+"/v1/charges",
		"--header", "Idempotency-Key: {{key}}", "--header", "X-Merchant: {{tenant}}", "--payload", `{"amount": 1250}`)
	text, _ := os.ReadFile(contract)
	if code != exitPass {
		t.Fatalf("init: exit %d\n%s%s\n%s", code, stdout, stderr, text)
	}
	if first := strings.SplitN(stdout, "\n", 2)[0]; !strings.HasPrefix(first, "ok") {
		t.Errorf("doctor's first line %q does not say all is well:\n%s\n%s", first, stdout, text)
	}
	return string(text)
}

// An answer whose ID is another column of the row than its primary key
// (Adyen's pspReference): init names that column as the effect's id, and
// draws references only along foreign keys to it.
func TestInitIDInAnotherColumn(t *testing.T) {
	pool, dbURL := servicePool(t)
	text := initDraft(t, charges(t, pool, func(_ int64, psp string) any {
		return map[string]any{"pspReference": psp, "resultCode": "Authorised"}
	}), dbURL)
	for _, want := range []string{"id: /pspReference", "id: psp_reference", "references: {column: psp_reference, table: charges}"} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "column: charge_id") {
		t.Errorf("the draft draws a reference along charge_keys.charge_id, which names charges.id, not psp_reference:\n%s", text)
	}
}

// An answer whose ID is the primary key behind a prefix (ch_4, Stripe's
// shape): init finds it, and names no effect id (a column compared as text
// never equals ch_4).
func TestInitPrefixedID(t *testing.T) {
	pool, dbURL := servicePool(t)
	text := initDraft(t, charges(t, pool, func(id int64, _ string) any {
		return map[string]any{"id": fmt.Sprintf("ch_%d", id), "object": "charge"}
	}), dbURL)
	if !strings.Contains(text, "id: /id # guessed: the create call's answer has charges's id") || !strings.Contains(text, "behind a prefix (ch_") {
		t.Errorf("the draft does not take /id, the prefixed id:\n%s", text)
	}
	if strings.Contains(text, "    id: id") || strings.Contains(text, ": TODO") {
		t.Errorf("the draft names an effect id column, or leaves a TODO:\n%s", text)
	}
}
