package layout_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// goFiles returns the module's Go files by directory, relative to the
// module's root, as the go command sees its packages: without testdata,
// and without directories whose names begin with "." or "_" (but with
// .ci, whose test summariser CI runs) or npm's node_modules.
func goFiles(t *testing.T) map[string][]string {
	t.Helper()
	root := testutil.RepoRoot()
	dirs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" ||
				strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") && name != ".ci") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			dirs[rel] = append(dirs[rel], name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("no Go files under %s", root)
	}
	return dirs
}

// TestDocFiles: every package has a doc.go that carries its package
// comment, and no other file of the package carries one (go doc shows
// them all, joined, in no order a reader chose).
func TestDocFiles(t *testing.T) {
	root := testutil.RepoRoot()
	for dir, names := range goFiles(t) {
		var withDoc []string
		hasCode := false
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			hasCode = true
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, dir, name), nil,
				parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if f.Doc != nil {
				withDoc = append(withDoc, name)
			}
		}
		switch {
		case !hasCode:
		case !slices.Contains(names, "doc.go"):
			t.Errorf("%s: no doc.go", dir)
		case !slices.Equal(withDoc, []string{"doc.go"}):
			t.Errorf("%s: the package comment is in %v, want doc.go alone", dir, withDoc)
		}
	}
}

// TestFuzzCorpora: every fuzz target has a seed corpus in its package's
// testdata/fuzz, which go test runs as part of the tests.
func TestFuzzCorpora(t *testing.T) {
	root := testutil.RepoRoot()
	targets := 0
	for dir, names := range goFiles(t) {
		for _, name := range names {
			if !strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") {
					continue
				}
				targets++
				corpus := filepath.Join(dir, "testdata", "fuzz", fn.Name.Name)
				if seeds, err := os.ReadDir(filepath.Join(root, corpus)); err != nil || len(seeds) == 0 {
					t.Errorf("%s: %s has no seed corpus in %s", filepath.Join(dir, name), fn.Name.Name, corpus)
				}
			}
		}
	}
	if targets == 0 {
		t.Fatal("no fuzz targets found")
	}
}

// TestExportedDocs: every exported name outside tests has a doc comment:
// functions, methods of exported types, types, and constants and
// variables (a group's comment, or a line's, counts for its names).
func TestExportedDocs(t *testing.T) {
	root := testutil.RepoRoot()
	for dir, names := range goFiles(t) {
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			path := filepath.Join(dir, name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(root, path), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range undocumented(f) {
				t.Errorf("%s:%d: %s has no doc comment", path, fset.Position(n.Pos()).Line, n.Name)
			}
		}
	}
}

// undocumented returns the exported names of f's declarations that have
// no doc comment.
func undocumented(f *ast.File) []*ast.Ident {
	var out []*ast.Ident
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && d.Doc == nil && (d.Recv == nil || exportedRecv(d.Recv)) {
				out = append(out, d.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch sp := s.(type) {
				case *ast.TypeSpec:
					if sp.Name.IsExported() && sp.Doc == nil && d.Doc == nil {
						out = append(out, sp.Name)
					}
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.IsExported() && sp.Doc == nil && sp.Comment == nil && d.Doc == nil {
							out = append(out, n)
						}
					}
				}
			}
		}
	}
	return out
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

// TestExamples: every package of the module's API (outside internal, cmd
// and bench) that exports a name has an Example test, which go doc shows
// and go test runs.
func TestExamples(t *testing.T) {
	root := testutil.RepoRoot()
	for dir, names := range goFiles(t) {
		parts := strings.Split(filepath.ToSlash(dir), "/")
		if slices.Contains(parts, "internal") || parts[0] == "cmd" || parts[0] == "bench" || parts[0] == ".ci" {
			continue
		}
		exports, examples := false, false
		for _, name := range names {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			test := strings.HasSuffix(name, "_test.go")
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if test && d.Recv == nil && strings.HasPrefix(d.Name.Name, "Example") {
						examples = true
					}
					if !test && d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
						exports = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						if !test && declaresExported(s) {
							exports = true
						}
					}
				}
			}
		}
		if exports && !examples {
			t.Errorf("%s: exports names but has no Example test", dir)
		}
	}
}

// declaresExported reports whether a type, constant or variable spec
// declares an exported name.
func declaresExported(s ast.Spec) bool {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return s.Name.IsExported()
	case *ast.ValueSpec:
		return slices.ContainsFunc(s.Names, (*ast.Ident).IsExported)
	}
	return false
}
