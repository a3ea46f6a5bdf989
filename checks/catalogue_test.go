package checks_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
)

// lineRecorder is a fataler that remembers where it was failed from.
type lineRecorder struct{ where, message string }

func (r *lineRecorder) Fatalf(format string, args ...any) {
	_, file, line, _ := runtime.Caller(1)
	r.where = fmt.Sprintf("%s:%d", file, line)
	r.message = fmt.Sprintf(format, args...)
}

// declaredIDs are the ID constants declared in catalogue.go, read from the
// source so that a check added there without its catalogue entry shows.
func declaredIDs(t *testing.T) []checks.ID {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "catalogue.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []checks.ID
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if typ, ok := vs.Type.(*ast.Ident); !ok || typ.Name != "ID" {
				continue
			}
			for _, v := range vs.Values {
				ids = append(ids, checks.ID(strings.Trim(v.(*ast.BasicLit).Value, `"`)))
			}
		}
	}
	return ids
}

// Every check has one entry: a name, what it finds, a priority (its place)
// and a failing line that no other check shares.
func TestCatalogueEntries(t *testing.T) {
	cat := checks.Catalogue()
	declared := declaredIDs(t)
	if len(declared) < 14 {
		t.Fatalf("found %d ID constants in catalogue.go; the parse is off", len(declared))
	}
	for _, id := range declared {
		if n := slices.IndexFunc(cat, func(c checks.Check) bool { return c.ID == id }); n < 0 {
			t.Errorf("%s is declared but has no catalogue entry (no name, priority or failing line)", id)
		}
	}
	lines := map[string]checks.ID{}
	seen := map[checks.ID]bool{}
	for _, c := range cat {
		if seen[c.ID] {
			t.Errorf("%s has two catalogue entries", c.ID)
		}
		seen[c.ID] = true
		if !slices.Contains(declared, c.ID) {
			t.Errorf("catalogue entry %s has no ID constant", c.ID)
		}
		if c.Name == "" || c.Finds == "" {
			t.Errorf("%s: name %q, finds %q: both are needed", c.ID, c.Name, c.Finds)
		}
		var r lineRecorder
		checks.Violation{Check: c.ID, Message: "m"}.Fail(&r)
		if r.where == "" || r.message != "m" {
			t.Errorf("%s: failing did not fail with the message (%q from %q)", c.ID, r.message, r.where)
			continue
		}
		if !strings.Contains(r.where, "catalogue.go:") {
			t.Errorf("%s fails from %s, not from its catalogue entry", c.ID, r.where)
		}
		if other, ok := lines[r.where]; ok {
			t.Errorf("%s fails from the same line as %s (%s): rapid could shrink one into the other", c.ID, other, r.where)
		}
		lines[r.where] = c.ID
	}
}

// docs/checks.md's table is the catalogue, row for row.
func TestREADMEListsTheCatalogue(t *testing.T) {
	readme, err := os.ReadFile("../docs/checks.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range checks.Catalogue() {
		row := fmt.Sprintf("| %s | %s | %s | %d |", c.ID, c.Name, c.Finds, i+1)
		if !strings.Contains(string(readme), row) {
			t.Errorf("docs/checks.md lacks the row\n%s", row)
		}
	}
}
