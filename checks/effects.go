package checks

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Effect declares one table the target writes for each action, and how a
// row maps back to its action.
type Effect struct {
	Table  string `yaml:"table" json:"table"`
	Tenant string `yaml:"tenant" json:"tenant"` // column holding the tenant
	Key    string `yaml:"key" json:"key"`       // column holding the idempotency key
	// ID is the column that must equal the ID in ok answers ("" if none).
	ID string `yaml:"id" json:"id,omitempty"`
	// PerAction is how many rows one action writes here (default 1).
	PerAction int `yaml:"per_action" json:"per_action"`
	// Fields maps a column to a JSON pointer into the winning payload.
	Fields     map[string]string `yaml:"fields" json:"fields,omitempty"`
	References *Reference        `yaml:"references" json:"references,omitempty"`
}

// Reference says that a column points at the ID of the same action's row in
// another effect table.
type Reference struct {
	Column string `yaml:"column" json:"column"`
	Table  string `yaml:"table" json:"table"`
}

// ValidateEffects checks the declarations among themselves (the database is
// checked by Observer.Validate). field names the list in the contract file.
func ValidateEffects(effects []Effect) error {
	if len(effects) == 0 {
		return fmt.Errorf("effects: none declared; name at least one table the target writes")
	}
	byTable := map[string]Effect{}
	for i, e := range effects {
		at := fmt.Sprintf("effects[%d]", i)
		if e.Table == "" {
			return fmt.Errorf("%s.table: missing", at)
		}
		if _, dup := byTable[e.Table]; dup {
			return fmt.Errorf("%s.table: %q declared twice", at, e.Table)
		}
		if e.Tenant == "" || e.Key == "" {
			return fmt.Errorf("%s (%s): tenant and key columns are both required", at, e.Table)
		}
		if e.PerAction < 0 {
			return fmt.Errorf("%s.per_action: %d; want 1 or more", at, e.PerAction)
		}
		for col, ptr := range e.Fields {
			if ptr != "" && !strings.HasPrefix(ptr, "/") {
				return fmt.Errorf("%s.fields.%s: %q is not a JSON pointer (want e.g. /subject)", at, col, ptr)
			}
		}
		byTable[e.Table] = e
	}
	for i, e := range effects {
		if e.References == nil {
			continue
		}
		ref, ok := byTable[e.References.Table]
		if !ok {
			return fmt.Errorf("effects[%d].references.table: %q is not a declared effect table", i, e.References.Table)
		}
		if ref.ID == "" {
			return fmt.Errorf("effects[%d].references.table: %q declares no id column to point at", i, e.References.Table)
		}
		if e.References.Column == "" {
			return fmt.Errorf("effects[%d].references.column: missing", i)
		}
	}
	return nil
}

func (e Effect) perAction() int {
	if e.PerAction == 0 {
		return 1
	}
	return e.PerAction
}

// ident quotes a possibly schema-qualified name.
func ident(name string) string {
	return pgx.Identifier(strings.Split(name, ".")).Sanitize()
}
