package agents

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/testtree"
)

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"reviewer": true, "code-reviewer": true, "a1-b2": true,
		"": false, "Reviewer": false, "code_reviewer": false, "-x": false, "x-": false,
		"a--b": false, "1st": false, "has space": false, strings.Repeat("a", 65): false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestDiscover(t *testing.T) {
	ws := t.TempDir()
	testtree.Write(t, ws, map[string]string{
		".indus/agents/reviewer.toml": "model = \"m1\"\ntool_collection = \"authoring\"\nprompt = \"Review.\"\n",
		".indus/agents/b-writer.toml": "name = \"writer\"\n",
		".indus/agents/broken.toml":   "model = \n",
		".indus/agents/Bad_Name.toml": "prompt = \"x\"\n",
		".indus/agents/typo.toml":     "name = \"typo\"\nmodle = \"x\"\n",
		".indus/agents/twin.toml":     "name = \"writer\"\n",
		".indus/agents/notes.md":      "not a profile",
		".indus/agents/.hidden.toml":  "name = \"hidden\"\n",
		".indus/agents/sub/deep.toml": "name = \"deep\"\n",
	})
	ps, faults := Discover(ws)
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "reviewer,writer" {
		t.Fatalf("profiles %v, want reviewer and writer", names)
	}
	if r := ps[0]; r.Model != "m1" || r.ToolCollection != "authoring" || r.Prompt != "Review." || filepath.Base(r.File) != "reviewer.toml" {
		t.Errorf("reviewer %+v", r)
	}
	want := map[string]string{
		"Bad_Name.toml": "not kebab-case",
		"broken.toml":   "not valid TOML",
		"twin.toml":     "already defined",
		"typo.toml":     "field modle: unknown field",
	}
	if len(faults) != len(want) {
		t.Fatalf("faults %v, want %d", faults, len(want))
	}
	for _, f := range faults {
		has, ok := want[filepath.Base(f.File)]
		// A name taken from the file name has no line; a duplicate is a
		// conflict of whole files.
		needLine := !errors.Is(f, addons.ErrDuplicateName) && filepath.Base(f.File) != "Bad_Name.toml"
		if !ok || !strings.Contains(f.Msg, has) || needLine && f.Line == 0 {
			t.Errorf("fault %v, want one containing %q with a line", f, has)
		}
	}
	if ps, fs := Discover(t.TempDir()); ps != nil || fs != nil {
		t.Error("a workspace without .indus/agents has profiles or faults")
	}
}
