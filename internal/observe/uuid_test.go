package observe_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/observe"
)

// A UUID key in a uuid column, under fixed tenants: the namespace is in
// the key alone, found by a range of UUIDs that the column's btree index
// serves (never a scan of 20000 foreign rows), and exactly the
// namespace's rows are read: not a neighbouring plan's whose namespace
// text starts the same ("-70-" beside "-7-"), not another run's.
func TestObserveUUIDKeysInAUUIDColumn(t *testing.T) {
	url, _ := newDatabase(t)
	pool := connect(t, url, "")
	exec(t, pool, `CREATE TABLE payments (id bigserial PRIMARY KEY, account text NOT NULL, request_id uuid NOT NULL, note text NOT NULL);
		CREATE INDEX payments_request_id ON payments (request_id);
		INSERT INTO payments (account, request_id, note) SELECT 'acct_' || (g % 2 + 1), gen_random_uuid(), 'foreign' FROM generate_series(1, 20000) g`)
	c := model.DefaultContract()
	c.KeyFormat, c.Tenants = model.IDUUID, []string{"acct_1", "acct_2"}
	ns := model.Namespace("is0a1b2c3d-7-")
	var want []string
	for _, row := range []struct {
		ns          model.Namespace
		tenant, key string
	}{
		{ns, "A", "k1"}, {ns, "B", "k1"}, {ns, "A", "k2"},
		{"is0a1b2c3d-70-", "A", "k1"}, {"is0a1b2c3d-8-", "A", "k1"}, {"isffffffff-7-", "B", "k2"},
	} {
		key, account := identifiers.SentKey(c, row.ns, row.key), identifiers.SentTenant(c, row.ns, row.tenant)
		if _, err := pool.Exec(t.Context(), `INSERT INTO payments (account, request_id, note) VALUES ($1, $2::uuid, 'ours')`, account, key); err != nil {
			t.Fatal(err)
		}
		if row.ns == ns {
			want = append(want, account+" "+key)
		}
	}
	exec(t, pool, "VACUUM ANALYZE payments")
	effects := []effect.Effect{{Table: "payments", Tenant: "account", Key: "request_id", ID: "id", PerAction: 1, Fields: map[string]string{"note": "/note"}}}
	o := observe.NewObserver(pool, effects)
	o.Contract = c
	snap, err := o.Observe(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range snap["payments"] {
		got = append(got, r.Tenant+" "+r.Key)
		if logical, ok := identifiers.LogicalKey(c, ns, r.Key); !ok || logical != "k1" && logical != "k2" {
			t.Errorf("row key %q reads back as %q, %v", r.Key, logical, ok)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Observe(%s) read %q, want %q", ns, got, want)
	}
	for _, generic := range []bool{false, true} {
		for _, q := range observe.ObserveQueries(t.Context(), o, ns) {
			plan := explain(t, pool, q, generic)
			if strings.Contains(plan, "Seq Scan") || !usesIndex(plan, "payments_request_id") {
				t.Errorf("generic %v: not by payments_request_id:\n%s\nfor: %s", generic, plan, q.SQL)
			}
		}
	}
	for _, a := range o.Indexes(t.Context()) {
		if !a.OK {
			t.Errorf("index advice: %s", a)
		}
	}
}
