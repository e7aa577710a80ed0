package cli

import (
	"go/parser"
	"go/token"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The package comment lists every subcommand as "indusr PATH", and names
// none that does not exist: a command added, renamed or removed without
// its line in doc.go fails here.
func TestDocNamesEverySubcommand(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		t.Fatalf("doc.go: %v (no package comment: %v)", err, f == nil || f.Doc == nil)
	}
	doc := f.Doc.Text()
	commands := map[string]bool{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden {
				continue
			}
			path := strings.TrimPrefix(sub.CommandPath(), "indusr ")
			commands[path] = true
			if !strings.Contains(doc, "indusr "+path) {
				t.Errorf("doc.go does not name the subcommand %q", "indusr "+path)
			}
			walk(sub)
		}
	}
	walk(newRoot(Program{}, nil, strings.NewReader(""), io.Discard, io.Discard))
	if len(commands) == 0 {
		t.Fatal("the command tree has no subcommands")
	}
	named := regexp.MustCompile(`(?m)(?:^\s*- |, )indusr ([a-z]+)(?: ([a-z]+))?`)
	for _, m := range named.FindAllStringSubmatch(doc, -1) {
		if !commands[m[1]] || (m[2] != "" && !commands[m[1]+" "+m[2]] && hasChildren(commands, m[1])) {
			t.Errorf("doc.go names %q, which is no subcommand", strings.TrimSpace(m[0]))
		}
	}
}

// hasChildren reports whether the command at path has subcommands, so a
// word after it must be one of them.
func hasChildren(commands map[string]bool, path string) bool {
	for c := range commands {
		if strings.HasPrefix(c, path+" ") {
			return true
		}
	}
	return false
}
