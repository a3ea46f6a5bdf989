// Package effect declares what an action leaves beyond its answer, as the
// contract names it: the rows it writes (Effect, one table or query each,
// how a row maps back to its action, the admin calls a query must not make)
// and the deliveries it causes (Sink, HTTP or a Redis stream; which action a
// delivery belongs to, which events are still open). It validates both.
// Reading the rows is internal/observe's; receiving the deliveries is
// internal/sink's; the Delivery a history records is internal/model's.
package effect

import (
	"fmt"
	"slices"
	"strings"
)

// Effect declares one table the target writes for each action, and how a
// row maps back to its action: by tenant and key columns, by a column that
// holds the action tag, or through the row it references in another effect
// table (join).
type Effect struct {
	Table string `yaml:"table" json:"table"`
	// Query replaces the table: a SELECT whose result columns the other
	// fields name; $1 is the namespace prefix. Table is then its label.
	Query  string `yaml:"query" json:"query,omitempty"`
	Tenant string `yaml:"tenant" json:"tenant,omitempty"` // column holding the tenant
	Key    string `yaml:"key" json:"key,omitempty"`       // column holding the idempotency key
	// Tag is a column whose value contains the action tag ({{tag}} in the
	// payload), for tables that keep no key.
	Tag string `yaml:"tag" json:"tag,omitempty"`
	// Join attributes a row to the action of the row it points at.
	Join *Reference `yaml:"join" json:"join,omitempty"`
	// ID is the column that must equal the ID in ok answers ("" if none).
	ID string `yaml:"id" json:"id,omitempty"`
	// PerAction is how many rows one action writes here (default 1).
	PerAction int `yaml:"per_action" json:"per_action"`
	// Fields maps a column to a JSON pointer into the winning payload.
	Fields     map[string]string `yaml:"fields" json:"fields,omitempty"`
	References *Reference        `yaml:"references" json:"references,omitempty"`
}

// Reference says that a column holds the ID of a row of another effect table.
type Reference struct {
	Column string `yaml:"column" json:"column"`
	Table  string `yaml:"table" json:"table"`
}

// attribution is how an effect's rows find their action.
type attribution int

const (
	// byKey: tenant and key columns.
	byKey attribution = iota
	// ByTag: a column that holds the action tag.
	ByTag
	// ByJoin: the row it points at in another effect table.
	ByJoin
)

// Attribution says how the effect's rows are attributed to actions.
func (e Effect) Attribution() attribution {
	switch {
	case e.Join != nil:
		return ByJoin
	case e.Tag != "":
		return ByTag
	default:
		return byKey
	}
}

// ValidateEffects checks the declarations among themselves (the database is
// checked by Observer.Validate).
func ValidateEffects(effects []Effect) error {
	if len(effects) == 0 {
		return fmt.Errorf("effects: none declared; name at least one table the target writes")
	}
	byTable := map[string]Effect{}
	for i, e := range effects {
		at := fmt.Sprintf("effects[%d]", i)
		if e.Table == "" {
			return fmt.Errorf("%s.table: missing (with query: a name for it)", at)
		}
		if _, dup := byTable[e.Table]; dup {
			return fmt.Errorf("%s.table: %q declared twice", at, e.Table)
		}
		if err := e.validate(at); err != nil {
			return err
		}
		byTable[e.Table] = e
	}
	for i, e := range effects {
		if err := e.validateReferences(i, byTable, effects); err != nil {
			return err
		}
	}
	return nil
}

// validate checks one declaration by itself (at is where it sits, as
// "effects[2]"): one way to attribute its rows to actions, a query that
// only reads one namespace, a row count in range, fields named by JSON
// pointers. Table names and references are ValidateEffects's.
func (e Effect) validate(at string) error {
	modes := 0
	if e.Key != "" {
		modes++
	}
	if e.Tag != "" {
		modes++
	}
	if e.Join != nil {
		modes++
	}
	switch {
	case modes != 1:
		return fmt.Errorf("%s (%s): give exactly one of key (with tenant), tag, or join to attribute rows to actions", at, e.Table)
	case e.Key != "" && e.Tenant == "":
		return fmt.Errorf("%s.tenant (%s): missing; a key column needs its tenant column", at, e.Table)
	case e.Join != nil && e.Tenant != "":
		return fmt.Errorf("%s.tenant (%s): a joined table takes its tenant from the row it points at; remove tenant", at, e.Table)
	case e.Query != "" && e.Join != nil:
		return fmt.Errorf("%s (%s): a query cannot be joined; select the tenant and key or tag in the query", at, e.Table)
	case e.Query != "" && !strings.Contains(e.Query, "$1"):
		return fmt.Errorf("%s.query (%s): must filter on the namespace prefix $1", at, e.Table)
	case e.Query != "" && AdminCall(e.Query) != "":
		return fmt.Errorf("%s.query (%s): calls %s, which acts outside the read: a query only selects the rows of a namespace", at, e.Table, AdminCall(e.Query))
	}
	if e.PerAction < 0 || e.PerAction > maxPerAction {
		return fmt.Errorf("%s.per_action: %d; want 1 to %d (the rows one action writes in %s)", at, e.PerAction, maxPerAction, e.Table)
	}
	for col, ptr := range e.Fields {
		if ptr != "" && !strings.HasPrefix(ptr, "/") {
			return fmt.Errorf("%s.fields.%s: %q is not a JSON pointer (want e.g. /subject)", at, col, ptr)
		}
	}
	return nil
}

// validateReferences checks that what declaration i points at (its
// references and its join) is another declared table with an id column,
// and that a join ends at a table attributed by key or tag: rows are
// attributed through one join at most.
func (e Effect) validateReferences(i int, byTable map[string]Effect, effects []Effect) error {
	for field, ref := range map[string]*Reference{"references": e.References, "join": e.Join} {
		if ref == nil {
			continue
		}
		target, ok := byTable[ref.Table]
		switch {
		case !ok:
			return fmt.Errorf("effects[%d].%s.table: %q is not a declared effect table (declared: %s)", i, field, ref.Table, tableNames(effects))
		case target.ID == "":
			return fmt.Errorf("effects[%d].%s.table: %q declares no id column to point at", i, field, ref.Table)
		case ref.Column == "":
			return fmt.Errorf("effects[%d].%s.column: missing", i, field)
		case field == "join" && target.Join != nil:
			return fmt.Errorf("effects[%d].join.table: %q is joined itself; join to a table attributed by key or tag", i, ref.Table)
		case field == "join" && target.Query != "":
			return fmt.Errorf("effects[%d].join.table: %q is a query; join to a table", i, ref.Table)
		}
	}
	return nil
}

func tableNames(effects []Effect) string {
	names := make([]string, len(effects))
	for i, e := range effects {
		names[i] = e.Table
	}
	return strings.Join(names, ", ")
}

// maxPerAction bounds per_action: one create that writes more rows than
// this to one table is a typo, and checks count rows per action in memory.
const maxPerAction = 10000

// RowsPerAction is how many rows one action writes here.
func (e Effect) RowsPerAction() int {
	if e.PerAction == 0 {
		return 1
	}
	return e.PerAction
}

// JoinedLast orders effects so that the tables joined rows point at come
// before the joined ones: a joined row is attributed, and counted, through
// the row it points at.
func JoinedLast(effects []Effect) []Effect {
	out := slices.Clone(effects)
	slices.SortStableFunc(out, func(a, b Effect) int {
		switch {
		case a.Join == nil && b.Join != nil:
			return -1
		case a.Join != nil && b.Join == nil:
			return 1
		}
		return 0
	})
	return out
}
