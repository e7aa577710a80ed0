package addons

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/indusagi/induscode/addons/policy"
	"github.com/indusagi/induscode/workspace"
)

// Dir is where a workspace keeps its addons, relative to its root.
const Dir = ".indus/addons"

// PackageField is the package.json field that names an addon's entry
// file, kept for npm-style addon packages that name their entry there.
const PackageField = "indusAddon"

// ManifestFile is the file that makes a folder a Tier-0 addon.
const ManifestFile = "manifest.toml"

// moduleExts are the extensions of a bare module file: recognised so the
// loader can say which tier it needs, never run in-process.
var moduleExts = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs"}

// Discovery says where to look for addons.
type Discovery struct {
	// Workspace is the root whose .indus/addons is scanned; "" scans
	// nothing.
	Workspace string
	// Dir replaces .indus/addons (relative to Workspace, or absolute).
	Dir string
	// Paths are more entry paths, loaded after the discovered ones.
	Paths []string
}

// Source is one addon found: its entry path and the id derived from it.
type Source struct {
	Path string
	ID   ID
}

// Discover lists the addon entries in dir, one level deep, sorted: a
// folder holding manifest.toml (the folder itself), a bare module file, a
// package folder whose package.json names an entry in indusAddon, or one
// holding an index.* file. Hidden entries are skipped. A folder that does
// not exist or cannot be read holds no addons.
func Discover(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := os.Stat(p) // follow a symlinked addon folder
		if err != nil {
			continue
		}
		if !info.IsDir() {
			if IsModule(name) {
				out = append(out, p)
			}
			continue
		}
		if entry, ok := folderEntry(p); ok {
			out = append(out, entry)
		}
	}
	slices.Sort(out)
	return out
}

// IsModule reports whether name is a bare module file (.ts, .js, ...),
// which no loader runs as it is.
func IsModule(name string) bool { return slices.Contains(moduleExts, filepath.Ext(name)) }

// folderEntry is what a folder contributes: itself when it holds a
// manifest, else its package entry, else its index.* file.
func folderEntry(dir string) (string, bool) {
	if fi, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil && !fi.IsDir() {
		return dir, true
	}
	if b, err := workspace.ReadRepoFile("", filepath.Join(dir, "package.json"), workspace.MaxConfigFile); err == nil {
		var pkg map[string]json.RawMessage
		var entry string
		if json.Unmarshal(b, &pkg) == nil && json.Unmarshal(pkg[PackageField], &entry) == nil && entry != "" {
			return policy.ResolvePath(entry, dir, ""), true
		}
	}
	for _, ext := range moduleExts {
		p := filepath.Join(dir, "index"+ext)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, true
		}
	}
	return "", false
}

// DeriveID is the id of the addon at path when its manifest declares
// none: a folder's own name, the folder name for an index.* file, else the
// file's name without its extension.
func DeriveID(path string) ID {
	path = filepath.Clean(path)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return ID(filepath.Base(path))
	}
	base := filepath.Base(path)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	if base == ManifestFile || stem == "index" {
		return ID(filepath.Base(filepath.Dir(path)))
	}
	return ID(stem)
}

// Sources turns a discovery into the sources to load, in load order: the
// discovered entries, then the explicit paths, duplicates collapsed (the
// first stays). Every path goes through the sandbox's hygiene funnel.
func Sources(d Discovery) []Source {
	var paths []string
	if strings.TrimSpace(d.Workspace) != "" {
		ws := policy.ResolvePath(d.Workspace, "", "")
		dir := Dir
		if strings.TrimSpace(d.Dir) != "" {
			dir = d.Dir
		}
		paths = Discover(policy.ResolvePath(dir, ws, ""))
		for _, p := range d.Paths {
			paths = append(paths, policy.ResolvePath(p, ws, ""))
		}
	} else {
		for _, p := range d.Paths {
			paths = append(paths, policy.ResolvePath(p, "", ""))
		}
	}
	seen := make(map[string]bool, len(paths))
	var out []Source
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, Source{Path: p, ID: DeriveID(p)})
	}
	return out
}
