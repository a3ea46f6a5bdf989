package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// maxSurface is the most top-level exported names the library packages
// may declare together (issue 18 cut 243 to 149; issue 28 set 154 as the
// ceiling). A new exported name is API a user may come to depend on: if it
// is needed and this fails, remove one it replaces or raise the ceiling in
// the same commit, saying why in its body.
const maxSurface = 154

// libraryPackages are the packages a Go caller imports: outside internal/,
// not a command, not a sample service (examples/ are targets, not API) and
// not docs.
func libraryPackages(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for dir := range packages(t) {
		if dir == "." || dir == "docs" || strings.HasPrefix(dir, "cmd/") || strings.HasPrefix(dir, "examples/") ||
			slices.Contains(strings.Split(dir, "/"), "internal") {
			continue
		}
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	return dirs
}

// exported parses a package's non-test files and returns its exported
// top-level names (types, functions, constants, variables; methods and
// fields are its types') and the types it declares as aliases of a type
// of an internal package.
func exported(t *testing.T, dir string) (names map[string]bool, internalAliases []string) {
	t.Helper()
	names = map[string]bool{}
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(token.NewFileSet(), "../"+dir, notTest, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		if p.Name == "main" {
			continue
		}
		for _, f := range p.Files {
			imports := map[string]string{} // local name -> import path
			for _, imp := range f.Imports {
				ip, _ := strconv.Unquote(imp.Path.Value)
				name := path.Base(ip)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				imports[name] = ip
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.IsExported() {
						names[d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								names[s.Name.Name] = true
							}
							if sel, ok := s.Type.(*ast.SelectorExpr); ok && s.Assign.IsValid() {
								if x, ok := sel.X.(*ast.Ident); ok && strings.Contains(imports[x.Name]+"/", "/internal/") {
									internalAliases = append(internalAliases, s.Name.Name+" = "+imports[x.Name]+"."+sel.Sel.Name)
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									names[n.Name] = true
								}
							}
						}
					}
				}
			}
		}
	}
	return names, internalAliases
}

// allowedAliases are the only aliases of internal types a public package
// may declare, each with the exported methods its type may carry. What a
// run found is declared once, in internal/findings, where the search
// fills it in, and a plan's trial and a run's progress in internal/engine,
// which makes them; stress names them so that callers keep writing
// stress.Result and stress.Progress (issue 28 moved the engine out of
// stress). Every other alias is a second home for a type and fails the
// test, as the old model/ layer did; and an aliased type that grows an
// exported method the list does not name fails too: engine methods stay
// unexported, or functions.
var allowedAliases = map[string][]string{
	"stress Failure = " + module + "/internal/findings.Failure":   {"Checks"},
	"stress Result = " + module + "/internal/findings.Result":     {"Row", "Rows", "Statuses"},
	"stress Sighting = " + module + "/internal/findings.Sighting": {"Checks", "Report"},
	"stress Trial = " + module + "/internal/engine.Trial":         nil,
	"stress Progress = " + module + "/internal/engine.Progress":   nil,
}

// methodsOf are the exported methods declared on type name in the
// non-test files of dir (a folder of the module).
func methodsOf(t *testing.T, dir, name string) []string {
	t.Helper()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(token.NewFileSet(), "../"+dir, notTest, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || !fd.Name.IsExported() {
					continue
				}
				rt := fd.Recv.List[0].Type
				if st, ok := rt.(*ast.StarExpr); ok {
					rt = st.X
				}
				if id, ok := rt.(*ast.Ident); ok && id.Name == name {
					out = append(out, fd.Name.Name)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestPublicSurface holds docs/layout.md's "One home per type": a type is
// declared once, in the package where it is made, and no public package
// re-exports an internal one under a second name but for allowedAliases;
// and the library's surface stays within maxSurface names.
func TestPublicSurface(t *testing.T) {
	total := 0
	var counts []string
	for _, dir := range libraryPackages(t) {
		names, aliases := exported(t, dir)
		for _, a := range aliases {
			if methods, ok := allowedAliases[dir+" "+a]; ok {
				_, target, _ := strings.Cut(a, " = "+module+"/")
				pkg, typ, _ := strings.Cut(target, ".")
				if got := methodsOf(t, pkg, typ); !slices.Equal(got, methods) {
					t.Errorf("%s declares %s, whose type exports the methods %v; want %v: a method a caller does not need "+
						"makes the engine's working API (unexport it, or make it a function of %s)", dir, a, got, methods, pkg)
				}
				continue
			}
			t.Errorf("%s declares %s: a second home for an internal type (docs/layout.md, \"One home per type\"); "+
				"hand the value out in a field or result instead, or define the type in %s", dir, a, dir)
		}
		total += len(names)
		if len(names) > 0 {
			counts = append(counts, dir+" "+strconv.Itoa(len(names)))
		}
	}
	if total < 50 {
		t.Fatalf("counted %d exported names in the library packages (%s): the walk is wrong", total, strings.Join(counts, ", "))
	}
	if total > maxSurface {
		t.Errorf("the library packages export %d top-level names, more than %d (%s): remove what a new name replaces, "+
			"or raise maxSurface in docs/surface_test.go with the reason in the commit body", total, maxSurface, strings.Join(counts, ", "))
	}
	t.Logf("public surface: %d top-level names (%s)", total, strings.Join(counts, ", "))
}
