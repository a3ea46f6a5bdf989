package dbstall_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/testbed/racedb"
)

// completeAfterCommit claims its key (uitems) and writes its item in one
// transaction, then completes the key record in a second one.
func completeAfterCommit(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
		key := r.URL.Query().Get("key")
		err := pgx.BeginFunc(r.Context(), pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(r.Context(), `INSERT INTO uitems (key) VALUES ($1)`, key); err != nil {
				return err
			}
			_, err := tx.Exec(r.Context(), `INSERT INTO items (key) VALUES ($1)`, key)
			return err
		})
		if err == nil {
			_, err = pool.Exec(r.Context(), `UPDATE uitems SET key = key WHERE key = $1`, key)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}
}

// recordLast writes its item, then its key record, in one transaction.
func recordLast(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
		key := r.URL.Query().Get("key")
		err := pgx.BeginFunc(r.Context(), pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(r.Context(), `INSERT INTO items (key) VALUES ($1)`, key); err != nil {
				return err
			}
			_, err := tx.Exec(r.Context(), `INSERT INTO uitems (key) VALUES ($1)`, key)
			return err
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}
}

// HoldAfter catches a request at its write to the key table after its
// write to the effect table: after the commit where the record is
// completed in a transaction of its own (the item is committed by then),
// before it where the record is written last in one transaction; a
// request that claimed the record first and never writes it again is not
// caught.
func TestHoldAfter(t *testing.T) {
	for _, tc := range []struct {
		name      string
		handler   func(*pgxpool.Pool) http.HandlerFunc
		fired     bool
		committed int // items committed while the request was held
	}{
		{"complete after commit", completeAfterCommit, true, 1},
		{"record last in one transaction", recordLast, true, 0},
		{"record claimed first", racedb.KeyFirst, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := racedb.New(t)
			url := serve(t, tc.handler(db.Service)).URL
			items := dbstall.Stall{Pool: db.Tester, Table: "items", Wait: 2 * time.Second}
			keys := dbstall.Stall{Pool: db.Tester, Table: "uitems", Wait: 2 * time.Second}
			var ex []client.Exchange
			committed := -1
			rep, err := items.HoldAfter(t.Context(), keys, func(ctx context.Context, answered *atomic.Int64) {
				racedb.Burst(t, 1, url, "k1", &ex)(ctx, answered)
			}, func() { committed = db.Count(t, "items", "k1") })
			if err != nil {
				t.Fatal(err)
			}
			if rep.Fired != tc.fired {
				t.Fatalf("report %+v, want fired %v", rep, tc.fired)
			}
			if tc.fired && committed != tc.committed {
				t.Errorf("%d items committed while held, want %d", committed, tc.committed)
			}
			racedb.RequireAnswered(t, ex)
		})
	}
}
