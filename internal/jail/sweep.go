package jail

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Quarantine is where a sweep moves what a confined command made of a
// protected path, relative to the workspace.
const Quarantine = ".indusvx/quarantine"

// Watcher notes the protected paths of a workspace before a confined
// command starts, so that those the command could make anyway are taken
// away afterwards. No rule can stop a writable folder from gaining an
// entry of a name that does not exist yet: under workspace-write a
// command may create .mcp.json, .indus/, .git/ (when absent), or a
// .claude/settings*.json. [Watcher.Sweep] moves each such path that
// appeared, or was replaced, into [Quarantine]. Safe for concurrent use.
type Watcher struct {
	workspace string
	mu        sync.Mutex
	seen      map[string]fs.FileInfo
}

// Watch notes the protected paths of p's workspace, or returns nil when
// p cannot create any (a nil or read-only policy). It makes .indusvx
// first: the deck's own folder, protected by the sandbox, and the
// quarantine's home.
func Watch(p *Policy) *Watcher {
	if p == nil || !p.WriteWorkspace || p.Workspace == "" {
		return nil
	}
	_ = os.Mkdir(filepath.Join(p.Workspace, ".indusvx"), 0o755)
	root, err := os.OpenRoot(p.Workspace)
	if err != nil {
		return nil // the command fails the same way
	}
	defer root.Close()
	return &Watcher{workspace: p.Workspace, seen: watched(root)}
}

// WatchCmd is [Watch] of the policy of a cmd that [Wrap] prepared (nil
// for any other cmd). Call it before cmd starts.
func WatchCmd(cmd *exec.Cmd) *Watcher {
	for i := len(cmd.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(cmd.Env[i], EnvVar+"="); ok {
			var s spec
			if json.Unmarshal([]byte(v), &s) != nil {
				return nil
			}
			return Watch(&s.Policy)
		}
	}
	return nil
}

// watched lists the protected paths that exist beneath root (but
// .indusvx, which is never swept into itself), not following a final
// symbolic link.
func watched(root *os.Root) map[string]fs.FileInfo {
	m := make(map[string]fs.FileInfo)
	for _, rel := range []string{".indus", ".mcp.json", ".git", ".git/hooks", ".git/config"} {
		if fi, err := root.Lstat(rel); err == nil {
			m[rel] = fi
		}
	}
	if d, err := root.Open(".claude"); err == nil {
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			if ok, _ := path.Match("settings*.json", n); ok {
				if fi, err := root.Lstat(".claude/" + n); err == nil {
					m[".claude/"+n] = fi
				}
			}
		}
	}
	return m
}

// Sweep moves each protected path that appeared or was replaced since
// Watch (or the last sweep) into the quarantine and returns a note per
// path for the command's result; nil when nothing changed. A nil
// Watcher sweeps nothing.
func (w *Watcher) Sweep() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	root, err := os.OpenRoot(w.workspace)
	if err != nil {
		return nil
	}
	defer root.Close()
	now := watched(root)
	rels := slices.Sorted(func(yield func(string) bool) {
		for rel := range now {
			if !yield(rel) {
				return
			}
		}
	})
	var notes []string
	var moved []string
	for _, rel := range rels {
		if old, ok := w.seen[rel]; ok && os.SameFile(old, now[rel]) && old.Mode().Type() == now[rel].Mode().Type() {
			continue
		}
		if slices.ContainsFunc(moved, func(m string) bool { return strings.HasPrefix(rel, m+"/") }) {
			continue // went with its folder
		}
		dest, err := quarantine(root, rel)
		if err != nil {
			notes = append(notes, fmt.Sprintf("[sandbox: the command made the protected path %s, which could not be moved away: %v; remove it before running anything else]", rel, err))
			continue
		}
		moved = append(moved, rel)
		notes = append(notes, fmt.Sprintf("[sandbox: the command made the protected path %s, which was moved to %s: a sandboxed command may not create %s (it could make later code run unconfined or unasked). %s]", rel, dest, rel, advice(rel)))
	}
	w.seen = watched(root)
	return notes
}

func advice(rel string) string {
	if rel == ".git" {
		return "Run git init yourself, or with --sandbox off."
	}
	return "Create it with the write tool instead, or move it back yourself if it is wanted."
}

// quarantine renames rel into the quarantine folder under a name that
// says when and what, and returns that name.
func quarantine(root *os.Root, rel string) (string, error) {
	if err := root.MkdirAll(Quarantine, 0o700); err != nil {
		return "", err
	}
	base := Quarantine + "/" + time.Now().UTC().Format("20060102T150405") + "-" + strings.ReplaceAll(rel, "/", "_")
	for i := 1; ; i++ {
		dest := base
		if i > 1 {
			dest = fmt.Sprintf("%s-%d", base, i)
		}
		if _, err := root.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
			return dest, root.Rename(rel, dest)
		} else if err != nil {
			return "", err
		}
	}
}
