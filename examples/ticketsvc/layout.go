package ticketsvc

import (
	"fmt"
	"slices"
	"strings"
)

// Layout names a schema layout: which tables and columns hold a ticket, its
// notification and its idempotency key. Every mode behaves the same over
// every layout; only where the rows keep the key differs. One database holds
// one layout (Migrate refuses to mix them).
type Layout string

const (
	// LayoutKeys (the default) gives tickets and notification_outbox
	// tenant and request_key columns, so every effect row names its action.
	LayoutKeys Layout = "keys"
	// LayoutTagged keeps the key only in the service's own idempotency_keys
	// table, as many middlewares do: tickets has a tenant but no key, and
	// notification_outbox only references its ticket.
	LayoutTagged Layout = "tagged"
)

// layoutSpec is everything a layout changes: its tables, and the two writes
// whose columns differ. A new layout is one new entry in layoutSpecs.
type layoutSpec struct {
	layout Layout
	// tables are created in order; a table referenced by another comes first.
	tables []table
	// insertTicket returns the new ticket's id; insertOutbox writes one
	// notification. Both may use @tenant, @key, @subject and @ticket_id.
	insertTicket string
	insertOutbox string
}

// idempotencyKeys is the service's record of each key, the same in every
// layout: the lookup of a key and the payload check read only this table.
var idempotencyKeys = table{
	name: "idempotency_keys",
	columns: []column{
		{"tenant", "text NOT NULL"},
		{"request_key", "text NOT NULL"},
		{"fingerprint", "text NOT NULL"},
		{"ticket_id", "bigint NOT NULL REFERENCES tickets (id)"},
	},
	// key-first and stuck-in-flight write the key row before its ticket.
	pending: "ticket_id",
	// short-lease stamps its claim with an expiry.
	lease:      "lease_expires",
	unique:     []string{"tenant", "request_key"},
	primaryKey: true,
	// global-keys looks a key up without its tenant.
	indexes: []string{"idempotency_keys_request_key_idx ON idempotency_keys (request_key)"},
}

var layoutSpecs = []layoutSpec{
	{
		layout: LayoutKeys,
		tables: []table{
			{
				name: "tickets",
				columns: []column{
					{"id", "bigserial PRIMARY KEY"},
					{"tenant", "text NOT NULL"},
					{"request_key", "text NOT NULL"},
					{"subject", "text NOT NULL"},
				},
				unique: []string{"tenant", "request_key"},
			},
			{
				name: "notification_outbox",
				columns: []column{
					{"id", "bigserial PRIMARY KEY"},
					{"tenant", "text NOT NULL"},
					{"request_key", "text NOT NULL"},
					{"ticket_id", "bigint NOT NULL REFERENCES tickets (id)"},
				},
				indexes: []string{
					"notification_outbox_tenant_request_key_idx ON notification_outbox (tenant, request_key)",
					"notification_outbox_ticket_id_idx ON notification_outbox (ticket_id)",
				},
			},
			idempotencyKeys,
		},
		insertTicket: `INSERT INTO tickets (tenant, request_key, subject)
			VALUES (@tenant, @key, @subject) RETURNING id`,
		insertOutbox: `INSERT INTO notification_outbox (tenant, request_key, ticket_id)
			VALUES (@tenant, @key, @ticket_id)`,
	},
	{
		layout: LayoutTagged,
		tables: []table{
			{
				name: "tickets",
				columns: []column{
					{"id", "bigserial PRIMARY KEY"},
					{"tenant", "text NOT NULL"},
					{"subject", "text NOT NULL"},
				},
			},
			{
				name: "notification_outbox",
				columns: []column{
					{"id", "bigserial PRIMARY KEY"},
					{"ticket_id", "bigint NOT NULL REFERENCES tickets (id)"},
				},
				indexes: []string{"notification_outbox_ticket_id_idx ON notification_outbox (ticket_id)"},
			},
			idempotencyKeys,
		},
		insertTicket: `INSERT INTO tickets (tenant, subject)
			VALUES (@tenant, @subject) RETURNING id`,
		insertOutbox: `INSERT INTO notification_outbox (ticket_id)
			VALUES (@ticket_id)`,
	},
}

// Layouts returns the layouts accepted by Migrate and Options.Layout, the
// default first.
func Layouts() []Layout {
	ls := make([]Layout, len(layoutSpecs))
	for i, s := range layoutSpecs {
		ls[i] = s.layout
	}
	return ls
}

// specFor returns the spec of a layout; "" is LayoutKeys.
func specFor(l Layout) (*layoutSpec, error) {
	if l == "" {
		l = LayoutKeys
	}
	for i := range layoutSpecs {
		if layoutSpecs[i].layout == l {
			return &layoutSpecs[i], nil
		}
	}
	names := make([]string, len(layoutSpecs))
	for i, s := range layoutSpecs {
		names[i] = string(s.layout)
	}
	return nil, fmt.Errorf("ticketsvc: unknown layout %q (valid: %s; empty for %s)",
		l, strings.Join(names, ", "), LayoutKeys)
}

// table is one table of a layout.
type table struct {
	name    string
	columns []column
	// unique are the columns of the table's uniqueness backstop on an
	// action, nil for none: a unique constraint (the primary key with
	// primaryKey set), or in the unconstrained schema a plain index.
	unique     []string
	primaryKey bool
	// indexes are "name ON table (columns)" clauses.
	indexes []string
	// pending names the column that may be NULL until the row is complete,
	// in a schema with pendingKeys.
	pending string
	// lease names the column, timestamptz, added in a schema with leases.
	lease string
}

type column struct{ name, def string }

// ddl returns the statements that create the table and its indexes if they
// do not exist in schema s: without the backstop's uniqueness when s is
// unconstrained, with the pending column nullable when s has pendingKeys.
func (t table) ddl(s schema) []string {
	defs := make([]string, 0, len(t.columns)+1)
	for _, c := range t.columns {
		def := c.name + " " + c.def
		if s.pendingKeys && c.name == t.pending {
			def = strings.Replace(def, " NOT NULL", "", 1)
		}
		defs = append(defs, def)
	}
	if s.leases && t.lease != "" {
		defs = append(defs, t.lease+" timestamptz")
	}
	indexes := t.indexes
	if t.unique != nil {
		cols := strings.Join(t.unique, ", ")
		switch {
		case s.unconstrained:
			indexes = append(slices.Clip(indexes),
				fmt.Sprintf("%s_%s_idx ON %s (%s)", t.name, strings.Join(t.unique, "_"), t.name, cols))
		case t.primaryKey:
			defs = append(defs, "PRIMARY KEY ("+cols+")")
		default:
			defs = append(defs, "UNIQUE ("+cols+")")
		}
	}
	stmts := []string{"CREATE TABLE IF NOT EXISTS " + t.name + " (\n\t" + strings.Join(defs, ",\n\t") + "\n)"}
	for _, idx := range indexes {
		stmts = append(stmts, "CREATE INDEX IF NOT EXISTS "+idx)
	}
	return stmts
}

func (t table) columnNames() []string {
	names := make([]string, len(t.columns))
	for i, c := range t.columns {
		names[i] = c.name
	}
	return names
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func layoutList(ls []Layout) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = fmt.Sprintf("%q", l)
	}
	return strings.Join(s, " or ")
}
