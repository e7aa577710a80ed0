package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/addons/policy"
	ws "github.com/indusagi/induscode/workspace"
)

// Dir is where a workspace keeps its subagent profiles, relative to
// its root; a sibling of [addons.Dir].
const Dir = ".indus/agents"

// Profile is a subagent profile, one .indus/agents/NAME.toml file:
//
//	name = "reviewer"            # default: the file name without .toml
//	description = "Reviews a change for bugs."
//	model = "anthropic/claude-sonnet-4-5"   # default: the parent's
//	tool_collection = "read, grep, find"    # or a deck profile: authoring, survey, all
//	prompt = "Review the diff for bugs; do not edit files."
//
// or a Claude Code subagent, one .claude/agents/NAME.md file (see
// [ParseMarkdown]). A host may also give profiles in code (the Agent
// SDK's agents option), as the same values.
type Profile struct {
	Name        string `toml:"name" json:"name"`
	Description string `toml:"description" json:"description,omitempty"`
	// Model is "provider/model", an alias of Claude Code's (sonnet,
	// opus, haiku), or "" or "inherit" for the parent's.
	Model string `toml:"model" json:"model,omitempty"`
	// ToolCollection is a deck profile (authoring, survey, all) or a list
	// of tool names and globs, separated by commas or spaces; Tools is
	// the same as a list. Both empty means the parent's tools.
	ToolCollection string   `toml:"tool_collection" json:"toolCollection,omitempty"`
	Tools          []string `toml:"tools" json:"tools,omitempty"`
	// PermissionMode narrows the parent's mode (it never widens it).
	PermissionMode string `toml:"permission_mode" json:"permissionMode,omitempty"`
	// MaxTurns bounds the subagent's model calls; 0 means the default.
	MaxTurns int    `toml:"max_turns" json:"maxTurns,omitempty"`
	Prompt   string `toml:"prompt" json:"prompt,omitempty"`
	// File is where the profile was read from ("" for one given in code).
	File string `toml:"-" json:"file"`
}

// ToolNames is the profile's tool list: Tools, then the words of a
// ToolCollection that is not a deck profile's name. Nil means the
// parent's tools (or the deck profile's, see [Profile.DeckProfile]).
func (p Profile) ToolNames() []string {
	out := slices.Clone(p.Tools)
	if p.DeckProfile() == "" {
		out = append(out, strings.FieldsFunc(p.ToolCollection, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })...)
	}
	return out
}

// DeckProfile is the deck profile ToolCollection names (authoring,
// survey or all), or "".
func (p Profile) DeckProfile() string {
	switch c := strings.TrimSpace(p.ToolCollection); c {
	case "authoring", "survey", "all":
		return c
	}
	return ""
}

// ValidName reports whether name is kebab-case: lower-case
// letters and digits in words joined by single hyphens, starting with a
// letter, at most 64 bytes (the tool-name limit of the model APIs).
func ValidName(name string) bool {
	if name == "" || len(name) > 64 || name[0] < 'a' || name[0] > 'z' || strings.HasSuffix(name, "-") || strings.Contains(name, "--") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Parse parses one profile file; stem is the default name. A
// problem is a load fault naming the file, the line and the field.
func Parse(file, stem string, data []byte) (Profile, error) {
	var p Profile
	md, err := manifest.Decode(file, "profile", data, &p)
	if err != nil {
		return Profile{}, err
	}
	if u := md.Undecoded(); len(u) > 0 {
		return Profile{}, &addons.Fault{Kind: addons.LoadFault, File: file, Line: manifest.KeyLine(data, "", -1, u[0].String()),
			Msg: fmt.Sprintf("field %s: unknown field; fields are name, description, model, tool_collection, tools, permission_mode, max_turns and prompt", u[0])}
	}
	if strings.TrimSpace(p.Name) == "" {
		p.Name = stem
	}
	if !ValidName(p.Name) {
		return Profile{}, &addons.Fault{Kind: addons.LoadFault, File: file, Line: manifest.KeyLine(data, "", -1, "name"),
			Msg: fmt.Sprintf("field name: %q is not kebab-case (such as code-reviewer)", p.Name)}
	}
	if err := p.check(); err != "" {
		return Profile{}, &addons.Fault{Kind: addons.LoadFault, File: file, Msg: err}
	}
	p.File = file
	return p, nil
}

// check reports what is wrong with the fields other than the name.
func (p Profile) check() string {
	switch p.PermissionMode {
	case "", "default", "acceptEdits", "plan", "bypassPermissions":
	default:
		return fmt.Sprintf("permission mode %q: use default, acceptEdits, plan or bypassPermissions", p.PermissionMode)
	}
	if p.MaxTurns < 0 {
		return "max_turns is negative"
	}
	return ""
}

// Check checks a profile given in code (the Agent SDK's agents option):
// a kebab-case name and known fields, as for a file.
func (p Profile) Check() error {
	if !ValidName(p.Name) {
		return fmt.Errorf("agent %q: the name is not kebab-case (such as code-reviewer)", p.Name)
	}
	if msg := p.check(); msg != "" {
		return fmt.Errorf("agent %s: %s", p.Name, msg)
	}
	return nil
}

// ClaudeDir is where Claude Code keeps a project's subagents, relative
// to the workspace root: one Markdown file per agent.
const ClaudeDir = ".claude/agents"

// Discover reads the workspace's profiles: every *.toml file of
// .indus/agents, then every *.md file of .claude/agents, each folder one
// level deep and in name order. A file that cannot be read or parsed, or
// whose name another file took first, becomes a fault and the others
// still load. A missing folder has no profiles.
func Discover(workspace string) ([]Profile, []*addons.Fault) {
	root := policy.ResolvePath(workspace, "", "")
	var out []Profile
	var faults []*addons.Fault
	seen := map[string]string{}
	for _, src := range []struct {
		dir, ext string
		parse    func(file, stem string, data []byte) (Profile, error)
	}{{Dir, ".toml", Parse}, {ClaudeDir, ".md", ParseMarkdown}} {
		ps, fs := discoverIn(root, src.dir, src.ext, src.parse, seen)
		out, faults = append(out, ps...), append(faults, fs...)
	}
	slices.SortFunc(out, func(a, b Profile) int { return strings.Compare(a.Name, b.Name) })
	return out, faults
}

// discoverIn reads the files of one folder; seen holds the names taken.
func discoverIn(root, rel, ext string, parse func(file, stem string, data []byte) (Profile, error), seen map[string]string) ([]Profile, []*addons.Fault) {
	dir := policy.ResolvePath(rel, root, "")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	var out []Profile
	var faults []*addons.Fault
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || filepath.Ext(name) != ext || e.IsDir() {
			continue
		}
		file := filepath.Join(dir, name)
		data, err := ws.ReadRepoFile(root, file, ws.MaxConfigFile) // beneath the workspace, bounded
		if err != nil {
			faults = append(faults, &addons.Fault{Kind: addons.LoadFault, File: file, Msg: "cannot read the profile", Err: err})
			continue
		}
		p, err := parse(file, strings.TrimSuffix(name, ext), data)
		if err != nil {
			faults = append(faults, err.(*addons.Fault))
			continue
		}
		if first, dup := seen[p.Name]; dup {
			faults = append(faults, &addons.Fault{Kind: addons.ConflictFault, File: file, Err: addons.ErrDuplicateName,
				Msg: fmt.Sprintf("profile %q is already defined in %s; the first one is kept", p.Name, first)})
			continue
		}
		seen[p.Name] = file
		out = append(out, p)
	}
	return out, faults
}
