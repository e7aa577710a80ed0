package induscode

import (
	"bufio"
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/indusagi/induscode"

// TestArchitectureTable keeps the package table of ARCHITECTURE.md true.
// The table is the map a newcomer reads first, so it must name every
// package of the module (but the examples and the module root, which holds
// only its doc and repository-wide tests), list after "->" exactly the
// module's packages each one imports (a trailing "/*" stands for every
// package under a folder; other words such as "stdlib" or "go-sdk" name
// outside code and are not checked), and list packages bottom up: a
// package may import only packages named in rows above its own, which is
// the "nothing imports upward" rule made checkable.
func TestArchitectureTable(t *testing.T) {
	t.Parallel()
	rows := parseArchitectureTable(t, "ARCHITECTURE.md")
	actual := modulePackages(t)

	listedAt := map[string]int{}
	for i, r := range rows {
		for _, p := range r.packages {
			if _, dup := listedAt[p]; dup {
				t.Errorf("ARCHITECTURE.md lists %s twice", p)
			}
			listedAt[p] = i
		}
	}
	for p := range actual {
		if _, ok := listedAt[p]; !ok {
			t.Errorf("package %s is missing from ARCHITECTURE.md's package table; add a row saying what it is for and what it imports", p)
		}
	}
	for p := range listedAt {
		if _, ok := actual[p]; !ok {
			t.Errorf("ARCHITECTURE.md lists %s, which is not a package of the module; remove or rename its row", p)
		}
	}

	for i, r := range rows {
		imported := map[string]bool{}
		for _, p := range r.packages {
			for _, imp := range actual[p] {
				if !slices.Contains(r.packages, imp) {
					imported[imp] = true
				}
			}
		}
		for imp := range imported {
			if !r.covers(imp) {
				t.Errorf("ARCHITECTURE.md: %s imports %s, but its row does not list it after ->", strings.Join(r.packages, ", "), imp)
			}
			if j, ok := listedAt[imp]; ok && j >= i {
				t.Errorf("ARCHITECTURE.md: %s imports %s, which is listed at or below it; the table goes bottom up and nothing imports upward", strings.Join(r.packages, ", "), imp)
			}
		}
		for _, want := range r.imports {
			found := false
			for imp := range imported {
				if matchImport(want, imp) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("ARCHITECTURE.md: the row of %s lists %s after ->, but no package of the row imports it", strings.Join(r.packages, ", "), want)
			}
		}
	}
}

// tableRow is one entry of the package table: the packages it names and
// the module packages its arrow lists.
type tableRow struct {
	packages []string
	imports  []string // module packages or "folder/*" patterns
}

func (r tableRow) covers(imp string) bool {
	for _, want := range r.imports {
		if matchImport(want, imp) {
			return true
		}
	}
	return false
}

func matchImport(pattern, imp string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/*"); ok {
		return strings.HasPrefix(imp, dir+"/")
	}
	return pattern == imp
}

// parseArchitectureTable reads the first fenced block after the
// "## Packages" heading. A line that starts in column 0 opens a row; its
// first words name the row's packages, joined by commas and continued on
// the next line after a trailing comma. Everything after "->" in a row,
// over its lines, is the import list.
func parseArchitectureTable(t *testing.T, file string) []tableRow {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		rows              []tableRow
		inSection, inCode bool
		continueNames     bool
		arrow             []string // arrow text of the current row
	)
	flush := func() {
		if len(rows) == 0 {
			return
		}
		r := &rows[len(rows)-1]
		for _, w := range strings.FieldsFunc(strings.Join(arrow, " "), func(c rune) bool { return c == ',' || c == ' ' }) {
			if isModulePackageName(w) {
				r.imports = append(r.imports, w)
			}
		}
		arrow = nil
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			if inSection && !inCode {
				flush()
				return rows
			}
			inSection = line == "## Packages" || strings.HasPrefix(line, "## Packages ")
			continue
		case !inSection:
			continue
		case strings.HasPrefix(line, "```"):
			if inCode {
				flush()
				return rows
			}
			inCode = true
			continue
		case !inCode || strings.TrimSpace(line) == "":
			continue
		}
		if line[0] != ' ' || continueNames {
			if !continueNames {
				flush()
				rows = append(rows, tableRow{})
			}
			r := &rows[len(rows)-1]
			// The names are the first words, joined by commas.
			rest := strings.TrimSpace(line)
			for {
				name, after, _ := strings.Cut(rest, " ")
				rest = strings.TrimSpace(after)
				if n := strings.TrimSuffix(name, ","); n != "" {
					r.packages = append(r.packages, n)
				}
				continueNames = strings.HasSuffix(name, ",")
				// Two spaces end the names on this line: the description
				// follows.
				if !continueNames || rest == "" || strings.HasPrefix(after, " ") {
					break
				}
			}
			line = rest
		}
		if _, after, ok := strings.Cut(line, "->"); ok {
			arrow = append(arrow, after)
		} else if len(arrow) > 0 {
			// A wrapped import list continues in the arrow's column.
			arrow = append(arrow, strings.TrimSpace(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("%s has no fenced package table under a \"## Packages\" heading", file)
	return nil
}

// isModulePackageName tells a module package (or folder/* pattern) in an
// arrow list from outside names such as stdlib, go-sdk or x/net/html.
func isModulePackageName(w string) bool {
	w = strings.TrimSuffix(w, "/*")
	if w == "" {
		return false
	}
	first, _, _ := strings.Cut(w, "/")
	st, err := os.Stat(first)
	return err == nil && st.IsDir() && first != "testdata" && first != "docs"
}

// modulePackages maps each package of the module (relative path) to the
// module packages it imports outside its tests, as built for Linux.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	ctx := build.Default
	ctx.GOOS = "linux"
	pkgs := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if p == "." || p == "examples" || strings.HasPrefix(p, "examples"+string(filepath.Separator)) {
			return nil
		}
		bp, err := ctx.ImportDir(p, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return err
		}
		rel := filepath.ToSlash(p)
		var imps []string
		for _, imp := range bp.Imports {
			if r, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				imps = append(imps, path.Clean(r))
			}
		}
		pkgs[rel] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}
