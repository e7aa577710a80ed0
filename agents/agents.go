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
//	model = "claude-sonnet-4-5"
//	tool_collection = "authoring"
//	prompt = "Review the diff for bugs; do not edit files."
type Profile struct {
	Name           string `toml:"name" json:"name"`
	Model          string `toml:"model" json:"model,omitempty"`
	ToolCollection string `toml:"tool_collection" json:"toolCollection,omitempty"`
	Prompt         string `toml:"prompt" json:"prompt,omitempty"`
	// File is where the profile was read from.
	File string `toml:"-" json:"file"`
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
			Msg: fmt.Sprintf("field %s: unknown field; fields are name, model, tool_collection and prompt", u[0])}
	}
	if strings.TrimSpace(p.Name) == "" {
		p.Name = stem
	}
	if !ValidName(p.Name) {
		return Profile{}, &addons.Fault{Kind: addons.LoadFault, File: file, Line: manifest.KeyLine(data, "", -1, "name"),
			Msg: fmt.Sprintf("field name: %q is not kebab-case (such as code-reviewer)", p.Name)}
	}
	p.File = file
	return p, nil
}

// Discover reads every *.toml file of the workspace's
// .indus/agents, one level deep and in name order. A file that cannot be
// read or parsed, or whose name another file took first, becomes a fault
// and the others still load. A missing folder has no profiles.
func Discover(workspace string) ([]Profile, []*addons.Fault) {
	root := policy.ResolvePath(workspace, "", "")
	dir := policy.ResolvePath(Dir, root, "")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	var out []Profile
	var faults []*addons.Fault
	seen := map[string]string{}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || filepath.Ext(name) != ".toml" || e.IsDir() {
			continue
		}
		file := filepath.Join(dir, name)
		data, err := ws.ReadRepoFile(root, file, ws.MaxConfigFile) // beneath the workspace, bounded
		if err != nil {
			faults = append(faults, &addons.Fault{Kind: addons.LoadFault, File: file, Msg: "cannot read the profile", Err: err})
			continue
		}
		p, err := Parse(file, strings.TrimSuffix(name, ".toml"), data)
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
	slices.SortFunc(out, func(a, b Profile) int { return strings.Compare(a.Name, b.Name) })
	return out, faults
}
