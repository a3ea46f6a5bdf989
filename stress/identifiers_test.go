package stress

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/usable"
)

// The identifier fields are read from the file, and what they leave out
// reaches the generator and the run's notes: only the key shapes inside
// the format are drawn, and fixed tenants bound a plan's tenants.
func TestIdentifierFieldsReachTheWorld(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		shapes     string
		tenants    int
		notes      []string
	}{
		{"default", "", "scul", 3, nil},
		{"uuid", "key_format: uuid\n", "", 3, []string{"key shapes not drawn", "key_format uuid", "trailing white space, another letter case, non-ASCII, long"}},
		{"word", "key_format: word\ntenant_format: word\ntag_format: word\n", "cl", 3, []string{"key_format word", "trailing white space, non-ASCII"}},
		{"pattern", "key_pattern: '[\\x21-\\x7e]{1,64}'\nkey_max_len: 64\n", "cl", 3, []string{`key_pattern "[\\x21-\\x7e]{1,64}"`}},
		{"fixed tenants", "tenants: [acct_1, acct_2]\n", "scul", 2, []string{"2 fixed tenant values", "carried by the key alone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("ids.yaml", append(append([]byte{}, ticketsvc.Contract...), tc.yaml...))
			if err != nil {
				t.Fatal(err)
			}
			if err := cfg.defaults(); err != nil {
				t.Fatal(err)
			}
			if got := string(cfg.World.Shapes); got != tc.shapes || cfg.World.KeyShapes != (tc.shapes != "") {
				t.Errorf("shapes %q (drawn %v), want %q", got, cfg.World.KeyShapes, tc.shapes)
			}
			if cfg.World.MaxTenants != tc.tenants {
				t.Errorf("max tenants %d, want %d", cfg.World.MaxTenants, tc.tenants)
			}
			notes := strings.Join(usable.IdentifierNotes(settingsOf(cfg).Contract, settingsOf(cfg).World), "\n")
			for _, w := range tc.notes {
				if !strings.Contains(notes, w) {
					t.Errorf("notes %q; want them to say %q", notes, w)
				}
			}
			if tc.notes == nil && notes != "" {
				t.Errorf("notes %q; want none", notes)
			}
		})
	}
}

// A field that says something impossible is a contract error naming it.
func TestIdentifierFieldErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"key_format: ulid\n", "key_format"},
		{"key_format: uuid\nkey_pattern: '.+'\n", "key_format and key_pattern are both given"},
		{"key_pattern: '(?!x)\\w+'\n", "key_pattern \"(?!x)\\\\w+\": not a regular expression RE2 compiles"},
		{"key_pattern: '[A-Z]{30}'\n", "key_pattern \"[A-Z]{30}\": no value idemstress can make matches it"},
		{"tenants: [acct_1]\ntenant_format: word\n", "tenants:"},
		{"tag_format: uuid\n", "tag_format"},
	} {
		_, err := Parse("ids.yaml", append(append([]byte{}, ticketsvc.Contract...), tc.yaml...))
		if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v; want a contract error saying %q", strings.TrimSpace(tc.yaml), err, tc.want)
		}
	}
	// A namespace of its own too long for a UUID's 30 hex digits.
	cfg, err := Parse("ids.yaml", append(append([]byte{}, ticketsvc.Contract...), "key_format: uuid\n"...))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Namespace = "nightlyjobs"
	if err := cfg.defaults(); err == nil || !strings.Contains(err.Error(), "namespace \"nightlyjobs\": too long for a UUID") {
		t.Errorf("long namespace under key_format uuid: %v", err)
	}
	cfg.Namespace = "n1"
	if err := cfg.defaults(); err != nil {
		t.Errorf("short namespace under key_format uuid: %v", err)
	}
}

// docs/contract.md's "Identifiers the API constrains" snippets are valid
// contracts once given their effect tables, and say what they show.
func TestIdentifierDocSnippets(t *testing.T) {
	doc, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "## Identifiers the API constrains")
	if start < 0 {
		t.Fatal("docs/contract.md lost its section on identifiers")
	}
	block := text[start:]
	block = block[strings.Index(block, "```yaml\n")+len("```yaml\n"):]
	block = block[:strings.Index(block, "```")]
	parts := strings.Split(block, "---\n")
	if len(parts) != 2 {
		t.Fatalf("want two snippets, got %d", len(parts))
	}
	base := "target: {url: \"http://127.0.0.1:8080/v1/{{tenant}}/x\", headers: {Idempotency-Key: \"{{key}}\"}, id: /id}\n"
	for i, part := range parts {
		if i > 0 {
			part = base + part
		}
		c, err := Parse("docs/contract.md", []byte(part+"payload: {name: web}\neffects: [{table: instances, tenant: project, key: request_id}]\n"))
		if err != nil {
			t.Errorf("snippet %d: %v", i+1, err)
			continue
		}
		switch i {
		case 0:
			if identifiers.KeyFormatOf(c.Contract) != model.IDUUID || identifiers.TenantFormatOf(c.Contract) != model.IDDNSLabel {
				t.Errorf("snippet 1: key %s, tenant %s", identifiers.KeyFormatOf(c.Contract), identifiers.TenantFormatOf(c.Contract))
			}
		case 1:
			if len(c.Contract.Tenants) != 2 || c.Contract.KeyPattern == "" {
				t.Errorf("snippet 2: %+v", c.Contract)
			}
		}
	}
}
