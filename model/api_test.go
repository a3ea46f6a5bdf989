package model_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// aliased lists the internal types the alias files (model/api.go,
// process/api.go, stress/api.go) give a public name, as
// "internal/model.Plan".
func aliased(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, file := range []string{"api.go", "../process/api.go", "../stress/api.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		imports := map[string]string{} // local name -> import path
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			name := path.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			imports[name] = p
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Assign.IsValid() {
				if sel, ok := ts.Type.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok {
						out[internalName(imports[x.Name], sel.Sel.Name)] = true
					}
				}
			}
			return true
		})
	}
	return out
}

// internalName is a type's name from its package path on, after the
// module: "internal/model.Plan".
func internalName(pkgPath, name string) string {
	_, rel, _ := strings.Cut(pkgPath, "idemstress/idemstress/")
	return rel + "." + name
}

// A Go caller can name only what a public package names: every type of an
// internal package that the documented API hands out (a field of Config,
// Result or Failure, a parameter or result of an exported method) must
// have an alias (model, process, stress/api.go), or a user holding one cannot declare
// a variable of its type. Moving model and process under internal/ left no
// test of that; a new public field of an unaliased internal type fails here.
func TestPublicAPINamesOnlyAliasedInternalTypes(t *testing.T) {
	known := aliased(t)
	if len(known) < 10 {
		t.Fatalf("found %d aliases in the alias files: the parse is wrong", len(known))
	}
	roots := []reflect.Type{
		reflect.TypeFor[stress.Config](), reflect.TypeFor[stress.Result](), reflect.TypeFor[stress.Failure](),
		reflect.TypeFor[*stress.Session](), reflect.TypeFor[stress.Trial](), reflect.TypeFor[stress.Progress](),
		reflect.TypeFor[checks.Violation](), reflect.TypeFor[regress.Case](),
	}
	seen := map[reflect.Type]bool{}
	var missing []string
	var walk func(typ reflect.Type, via string)
	walk = func(typ reflect.Type, via string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		pkg := typ.PkgPath()
		if typ.Kind() == reflect.Pointer {
			pkg = typ.Elem().PkgPath()
		}
		internal := strings.Contains(pkg, "/internal/")
		// An unexported type in an exported field is computed by the engine
		// (Effect's attribution): nothing a caller sets, nothing to alias.
		if internal && typ.Name() != "" && token.IsExported(typ.Name()) {
			if name := internalName(typ.PkgPath(), typ.Name()); !known[name] {
				missing = append(missing, name+" (via "+via+")")
			}
		}
		// The methods of an internal type are the engine's (model/api.go's
		// package doc): only the public packages' own methods are API.
		for i := range typ.NumMethod() {
			if internal {
				break
			}
			m := typ.Method(i)
			for j := range m.Type.NumIn() {
				walk(m.Type.In(j), via+"."+m.Name)
			}
			for j := range m.Type.NumOut() {
				walk(m.Type.Out(j), via+"."+m.Name)
			}
		}
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			walk(typ.Elem(), via)
		case reflect.Map:
			walk(typ.Key(), via)
			walk(typ.Elem(), via)
		case reflect.Func:
			for j := range typ.NumIn() {
				walk(typ.In(j), via)
			}
			for j := range typ.NumOut() {
				walk(typ.Out(j), via)
			}
		case reflect.Struct:
			// Only the API's own structs are walked field by field: a
			// library's (pgxpool.Pool, time.Time) is the library's.
			if !strings.HasPrefix(typ.PkgPath(), "github.com/idemstress/") {
				return
			}
			for i := range typ.NumField() {
				if f := typ.Field(i); f.IsExported() {
					walk(f.Type, via+"."+f.Name)
				}
			}
		}
	}
	for _, r := range roots {
		name := r.String()
		if r.Kind() == reflect.Pointer {
			// The pointer's method set, then the struct's fields.
			walk(r, name)
			continue
		}
		walk(r, name)
		walk(reflect.PointerTo(r), name)
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("an internal type the public API hands out has no alias in model, process or stress/api.go: %s", m)
	}
}
