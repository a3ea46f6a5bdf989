package docs_test

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/idemstress/idemstress"

// goPackage is one folder of Go files in the tree.
type goPackage struct {
	dir     string // slash-separated, from the module root
	doc     bool   // some file carries a package doc comment
	imports []string
}

// packages reads every folder of Go files below the module root, skipping
// testdata and hidden folders, as go list would.
func packages(t *testing.T) map[string]*goPackage {
	t.Helper()
	pkgs := map[string]*goPackage{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != ".." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel("..", filepath.Dir(path))
		dir := filepath.ToSlash(rel)
		p := pkgs[dir]
		if p == nil {
			p = &goPackage{dir: dir}
			pkgs[dir] = p
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Package ") || f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Command ") {
			p.doc = true
		}
		if !strings.HasSuffix(name, "_test.go") {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if rest, ok := strings.CutPrefix(path, module+"/"); ok && !slices.Contains(p.imports, rest) {
					p.imports = append(p.imports, rest)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestEveryPackageHasADoc: go doc and pkg.go.dev open a package with its
// doc comment; a package without one leaves the reader to guess its idea.
func TestEveryPackageHasADoc(t *testing.T) {
	for _, p := range packages(t) {
		if !p.doc {
			t.Errorf("%s: no package doc comment (\"// Package x ...\" or \"// Command x ...\" above the package clause, in doc.go)", p.dir)
		}
	}
}

// layoutEntries reads docs/layout.md's block: a package (or several,
// comma-separated) at the start of a line, then what it holds.
func layoutEntries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("layout.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "\n```\n")
	if !ok {
		t.Fatal("docs/layout.md has no code block")
	}
	block, _, _ = strings.Cut(block, "\n```")
	var entries []string
	lead := regexp.MustCompile(`^([^\s,]+(?:, [^\s,]+)*)(?:\s|$)`)
	sc := bufio.NewScanner(strings.NewReader(block))
	for sc.Scan() {
		m := lead.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		entries = append(entries, strings.Split(m[1], ", ")...)
	}
	return entries
}

// TestLayoutMatchesTree: docs/layout.md names every package of the
// tree (a sub-package may stand under its parent's entry), names nothing
// that is not one, and lists them so that imports point down the list.
func TestLayoutMatchesTree(t *testing.T) {
	pkgs := packages(t)
	entries := layoutEntries(t)
	place := map[string]int{}
	for i, e := range entries {
		if _, ok := pkgs[e]; !ok {
			t.Errorf("docs/layout.md lists %s, which is not a package of the tree", e)
		}
		place[e] = i
	}
	// entryOf is the entry a package stands under: itself, or the
	// nearest listed parent.
	entryOf := func(dir string) (string, bool) {
		for d := dir; d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
			if _, ok := place[d]; ok {
				return d, true
			}
		}
		return "", false
	}
	for dir, p := range pkgs {
		e, ok := entryOf(dir)
		if !ok {
			t.Errorf("package %s is not in docs/layout.md", dir)
			continue
		}
		for _, imp := range p.imports {
			ie, ok := entryOf(imp)
			if !ok || ie == e {
				continue
			}
			if place[ie] < place[e] {
				t.Errorf("docs/layout.md: %s imports %s, listed above it (imports point down the list)", dir, imp)
			}
		}
	}
}
