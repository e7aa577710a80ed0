package agents

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
)

// A subagent file written for Claude Code, with fields we do not use,
// loads unchanged beside the workspace's own profiles; a name taken by
// a .indus/agents profile stays the first one's.
func TestDiscoverClaudeAgents(t *testing.T) {
	ws := t.TempDir()
	testtree.Write(t, ws, map[string]string{
		".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code for bugs. Use after a change.\n" +
			"tools: Read, Grep, Glob\nmodel: inherit\ncolor: blue\n---\n\nYou are a careful reviewer.\nNever edit files.\n",
		".claude/agents/listed.md":  "---\ndescription: x\ntools:\n  - read\n  - mcp__fs__*\nmodel: haiku\npermissionMode: plan\n---\nBody.\n",
		".claude/agents/writer.md":  "---\nname: writer\ndescription: twin\n---\nignored\n",
		".claude/agents/nofront.md": "just text\n",
		".claude/agents/open.md":    "---\nname: open\n",
		".claude/agents/badmode.md": "---\npermissionMode: yolo\n---\n",
		".indus/agents/writer.toml": "description = \"Writes.\"\ntool_collection = \"read, write\"\n",
		".claude/agents/notes.txt":  "not an agent",
	})
	ps, faults := Discover(ws)
	byName := map[string]Profile{}
	var names []string
	for _, p := range ps {
		byName[p.Name] = p
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "listed,reviewer,writer" {
		t.Fatalf("profiles %v", names)
	}
	r := byName["reviewer"]
	if r.Description != "Reviews code for bugs. Use after a change." || r.Model != "" || r.Prompt != "You are a careful reviewer.\nNever edit files." ||
		!slices.Equal(r.ToolNames(), []string{"Read", "Grep", "Glob"}) {
		t.Errorf("reviewer %+v tools %q", r, r.ToolNames())
	}
	if l := byName["listed"]; !slices.Equal(l.ToolNames(), []string{"read", "mcp__fs__*"}) || l.Model != "haiku" || l.PermissionMode != "plan" || ClaudeModel(l.Model) != "anthropic/claude-haiku-4-5" {
		t.Errorf("listed %+v", l)
	}
	if w := byName["writer"]; filepath.Ext(w.File) != ".toml" || !slices.Equal(w.ToolNames(), []string{"read", "write"}) {
		t.Errorf("writer %+v: want the .indus/agents one", w)
	}
	want := map[string]string{"writer.md": "already defined", "nofront.md": "no front matter", "open.md": "never closed", "badmode.md": "permission mode \"yolo\""}
	if len(faults) != len(want) {
		t.Fatalf("faults %v", faults)
	}
	for _, f := range faults {
		if has := want[filepath.Base(f.File)]; has == "" || !strings.Contains(f.Error(), has) {
			t.Errorf("fault %v, want one containing %q", f, has)
		}
	}
	if got := Describe(r); got != "Reviews code for bugs. Use after a change.; tools Read, Grep, Glob" {
		t.Errorf("Describe = %q", got)
	}
}

func TestProfileCheck(t *testing.T) {
	if err := (Profile{Name: "Bad"}).Check(); err == nil {
		t.Error("a name in capitals passed")
	}
	if err := (Profile{Name: "ok", PermissionMode: "sudo"}).Check(); err == nil || !strings.Contains(err.Error(), "sudo") {
		t.Errorf("Check = %v", err)
	}
	if err := (Profile{Name: "ok", PermissionMode: "plan"}).Check(); err != nil {
		t.Error(err)
	}
	if (Profile{ToolCollection: "survey"}).ToolNames() != nil || (Profile{ToolCollection: "survey"}).DeckProfile() != "survey" {
		t.Error("a deck profile's name read as tool names")
	}
}
