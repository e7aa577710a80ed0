package conductor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/indusagi/induscode/tool"
)

// The tools each kind of rule covers, as Claude Code's Read, Edit and
// Bash rules cover every tool of their kind.
var (
	// readTools read or list files; a Read rule covers them all.
	readTools = map[string]bool{"read": true, "grep": true, "find": true, "ls": true, "symbols": true}
	// editTools change files; an Edit rule covers them all, and
	// acceptEdits runs them.
	editTools = map[string]bool{"edit": true, "write": true}
	// commandTools run a command; a Bash rule covers them all.
	commandTools = map[string]bool{"bash": true, "process": true, "bg-process": true}
)

func isEditTool(name string) bool    { return editTools[name] }
func isCommandTool(name string) bool { return commandTools[name] }

// target is where a path call acts: the path as the tools resolve it (@
// and ~ expanded, relative to the workspace, cleaned), and the same with
// its links resolved. tree says the call reads everything below it
// (grep, find, workspace-wide symbols).
type target struct {
	paths []string
	tree  bool
}

// targetOf says where a call of a path tool acts; ok is false when the
// input names no path a rule can judge.
func targetOf(root, name string, input json.RawMessage) (target, bool) {
	var in struct {
		Path   string `json:"path"`
		Action string `json:"action"`
	}
	json.Unmarshal(input, &in)
	var t target
	p := in.Path
	switch name {
	case "grep", "find":
		t.tree = true
	case "symbols":
		// Only these two read one file; the others answer from the whole
		// workspace.
		if in.Action != "document_symbols" && in.Action != "hover" || p == "" {
			t.tree, p = true, "."
		}
	}
	if p == "" {
		if name == "grep" || name == "find" || name == "ls" {
			p = "." // the tools' default: the working directory
		} else {
			return t, false
		}
	}
	abs, err := tool.ResolveIn(root, p)
	if err != nil {
		return t, false
	}
	t.paths = []string{abs}
	if real := resolveLinks(abs); real != abs {
		t.paths = append(t.paths, real)
	}
	if t.tree {
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
			t.tree = false // a search of one file reads that file only
		}
	}
	return t, true
}

// resolveLinks resolves the links of the longest part of abs that exists
// (a file to be written may not yet).
func resolveLinks(abs string) string {
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// ruleRoots are the workspace's root as written and with its links
// resolved, which a resolved path is relative to.
func ruleRoots(root string) []string {
	out := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != out[0] {
		out = append(out, real)
	}
	return out
}

// specPattern turns a rule's path specifier into an absolute pattern for
// one root: "//abs" is absolute, "~/x" is in the home folder, anything
// else is relative to the workspace.
func specPattern(root, spec string) string {
	switch {
	case strings.HasPrefix(spec, "//"):
		return filepath.Clean(spec[1:])
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, spec[1:])
		}
	}
	spec = strings.TrimPrefix(strings.TrimPrefix(spec, "./"), "/")
	return filepath.Join(escapeMeta(root), spec)
}

// coversPath reports whether the pattern covers abs: abs matches it, or
// lies in a folder that does (gitignore's sense: Read(secrets) hides what
// secrets holds), or is the folder a "dir/**" pattern names.
func coversPath(pattern, abs string) bool {
	base := strings.TrimSuffix(pattern, "/**")
	for p := abs; ; p = filepath.Dir(p) {
		if ok, _ := doublestar.Match(pattern, p); ok || p == base {
			return true
		}
		if filepath.Dir(p) == p {
			return false
		}
	}
}

// literalBase is the folder a pattern's matches all lie in: its leading
// segments without a glob character.
func literalBase(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.ContainsAny(s, `*?[{\`) {
			return filepath.Clean("/" + strings.Join(segs[:i], "/"))
		}
	}
	return filepath.Clean(pattern)
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// pathDenied reports whether a deny rule's path specifier covers the call:
// any way of reading the path (as written, links resolved, against the
// workspace as written or resolved) matching is enough, and a search
// below a folder that holds covered files is covered too, since its
// results would show them.
func pathDenied(root, spec, name string, input json.RawMessage) bool {
	t, ok := targetOf(root, name, input)
	if !ok {
		return false
	}
	for _, r := range ruleRoots(root) {
		pat := specPattern(r, spec)
		base := literalBase(pat)
		for _, p := range t.paths {
			if coversPath(pat, p) || (t.tree && (within(base, p) || within(p, base))) {
				return true
			}
		}
	}
	return false
}

// pathAllowed reports whether an allow rule's path specifier covers the
// call: every way of reading the path must match, so a link inside an
// allowed folder does not carry the allowance elsewhere.
func pathAllowed(root, spec, name string, input json.RawMessage) bool {
	t, ok := targetOf(root, name, input)
	if !ok {
		return false
	}
	roots := ruleRoots(root)
	for _, p := range t.paths {
		matched := false
		for _, r := range roots {
			if coversPath(specPattern(r, spec), p) {
				matched = true
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// escapeMeta quotes the characters a pattern gives a meaning, so a
// workspace folder named "a[1]" is matched as written.
func escapeMeta(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]{}\\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
