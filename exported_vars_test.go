package induscode

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoExportedMutableVars: a package-level exported variable is shared
// by every user of the package, and any of them can change it for all the
// others (a list of profiles, a table of tool names, a default schema).
// Tables are functions returning fresh values, and limits are constants.
// Sentinel errors (ErrX, for errors.Is) are the one exception, as in the
// standard library.
func TestNoExportedMutableVars(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, spec := range gen.Specs {
				for _, name := range spec.(*ast.ValueSpec).Names {
					if name.IsExported() && !strings.HasPrefix(name.Name, "Err") {
						t.Errorf("%s: exported variable %s.%s can be changed by any caller for all the others; make it a constant or a function that returns a fresh value",
							fset.Position(name.Pos()), f.Name.Name, name.Name)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
