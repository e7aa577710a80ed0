package walk

import (
	"path/filepath"
	"strings"
)

// Admits reports whether a walk of root would take the entry at root/rel
// ('/'-separated; a folder when isDir, else a regular file): no folder on
// the way is one the walk skips or its ignore rules leave out, and
// neither is the entry. It reads the
// ignore files on the way, as the walk does, and answers for one file
// without listing any folder, so that a watcher can tell whether a file
// created since a listing belongs in it. A Filter's globs and types are
// not applied; the caller has them.
func Admits(root, rel string, isDir bool) bool {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return false
	}
	node := ancestorRules(root)
	dir := root
	parts := strings.Split(rel, "/")
	for i, name := range parts {
		if name == "" || name == "." || name == ".." || skipDir(name) {
			return false
		}
		node = childNode(node, dir, exists(filepath.Join(dir, gitDir)),
			exists(filepath.Join(dir, gitIgnoreFile)), exists(filepath.Join(dir, dotIgnoreFile)))
		abs := filepath.Join(dir, name)
		if node.ignored(abs, name, isDir || i < len(parts)-1) {
			return false
		}
		dir = abs
	}
	return true
}
