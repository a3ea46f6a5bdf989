package observe_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/observe"
)

// TestIndexes: doctor's advice names the index each search uses, or the
// statement that would create the one it lacks, in the table's collation.
func TestIndexes(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		effects      []effect.Effect
		want         []string // one line per effect table, as doctor prints it
	}{
		{"keys, as the sample service has them", `
			CREATE TABLE tickets (id bigserial PRIMARY KEY, tenant text NOT NULL, request_key text NOT NULL, subject text NOT NULL, UNIQUE (tenant, request_key));
			CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, tenant text NOT NULL, request_key text NOT NULL, ticket_id bigint NOT NULL);
			CREATE INDEX notification_outbox_tenant_request_key_idx ON notification_outbox (tenant, request_key)`,
			sampleEffects(),
			[]string{
				"ok: tickets (tenant) has tickets_tenant_request_key_key; (request_key) is searched among the rows written since the plan began, by id > its value then (tickets_pkey)",
				"ok: notification_outbox (tenant) has notification_outbox_tenant_request_key_idx; (request_key) is searched among the rows written since the plan began, by id > its value then (notification_outbox_pkey)",
			}},
		{"keys, no index, a linguistic collation, explicit ids", `
			CREATE TABLE tickets (id bigint PRIMARY KEY, tenant text COLLATE "en-x-icu" NOT NULL, request_key text NOT NULL, subject text NOT NULL);
			CREATE INDEX ON tickets (tenant);
			CREATE TABLE notification_outbox (id bigint, tenant text NOT NULL, request_key text NOT NULL, ticket_id bigint NOT NULL)`,
			sampleEffects(),
			[]string{
				`MISSING: CREATE INDEX ON tickets (tenant COLLATE "C"); CREATE INDEX ON tickets (request_key) (tickets: (tenant) has no index that serves a prefix (tickets_tenant_idx orders by a collation, not by bytes); (request_key) leads no whole-table btree index (an index serves a prefix of its first column only); until then each plan scans it)`,
				`MISSING: CREATE INDEX ON notification_outbox (tenant); CREATE INDEX ON notification_outbox (request_key) (notification_outbox: (tenant) leads no whole-table btree index (an index serves a prefix of its first column only); (request_key) leads no whole-table btree index (an index serves a prefix of its first column only); until then each plan scans it)`,
			}},
		{"tagged, as the sample service has it", `
			CREATE TABLE tickets (id bigserial PRIMARY KEY, tenant text NOT NULL, subject text NOT NULL);
			CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, ticket_id bigint NOT NULL);
			CREATE INDEX notification_outbox_ticket_id_idx ON notification_outbox (ticket_id)`,
			taggedEffects(),
			[]string{
				"ok: tickets (subject), holding the tag, is searched among the rows written since the plan began, by id > its value then (tickets_pkey)",
				"ok: notification_outbox (ticket_id) has notification_outbox_ticket_id_idx",
			}},
		{"tagged, explicit ids, no index on the join", `
			CREATE TABLE tickets (id bigint PRIMARY KEY, tenant text NOT NULL, subject text NOT NULL);
			CREATE TABLE notification_outbox (id bigint, ticket_id bigint NOT NULL)`,
			taggedEffects(),
			[]string{
				"MISSING: tickets: a tag inside subject is a substring no btree index finds, and tickets has no column to search only the rows written since the plan began (no column takes its values from a sequence (serial, bigserial or identity)); give it a sequence-assigned id with an index, e.g. id bigserial PRIMARY KEY; until then each plan scans it",
				"MISSING: CREATE INDEX ON notification_outbox (ticket_id) (notification_outbox: (ticket_id) has no index, and notification_outbox no sequence-assigned id with one (no column takes its values from a sequence (serial, bigserial or identity)); until then each plan scans it)",
			}},
		{"tagged, a serial id without an index", `
			CREATE TABLE tickets (id bigserial, tenant text NOT NULL, subject text NOT NULL);
			CREATE TABLE notification_outbox (id bigserial PRIMARY KEY, ticket_id bigint NOT NULL)`,
			taggedEffects(),
			[]string{
				"MISSING: CREATE INDEX ON tickets (id) (tickets: a tag inside subject is a substring no btree index finds, and tickets has no column to search only the rows written since the plan began (id: no btree index has it as its first column); give it a sequence-assigned id with an index, e.g. id bigserial PRIMARY KEY; until then each plan scans it)",
				"ok: notification_outbox (ticket_id) is searched among the rows written since the plan began, by id > its value then (notification_outbox_pkey)",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, db := newDatabase(t)
			admin := connect(t, url, "")
			exec(t, admin, tc.schema)
			// The catalog is readable by a role that may only SELECT the tables.
			reader := newReader(t, url, db, admin, "tickets", "notification_outbox")
			got := observe.NewObserver(reader, tc.effects).Indexes(t.Context())
			if len(got) != len(tc.want) {
				t.Fatalf("%d lines, want %d: %v", len(got), len(tc.want), got)
			}
			for i, a := range got {
				if a.String() != tc.want[i] {
					t.Errorf("line %d:\n got %s\nwant %s", i, a, tc.want[i])
				}
				if a.OK != strings.HasPrefix(tc.want[i], "ok:") {
					t.Errorf("line %d: OK %v", i, a.OK)
				}
			}
		})
	}
}
