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
// command may create .mcp.json, .indus/, .git/ (when absent), a
// .claude/settings*.json, a protected child of .git (commondir, info/,
// config.worktree, ...) or a .git in any folder below the top (another
// repository, which git enters through a gitlink). [Watcher.Sweep] moves each such path that
// appeared, or was replaced, into [Quarantine]. Safe for concurrent use.
type Watcher struct {
	workspace string
	mu        sync.Mutex
	seen      map[string]fs.FileInfo
}

// Watch notes the protected paths of p's workspace, or returns nil when
// p cannot create any (a nil policy, or one that writes nothing in the
// workspace). It makes .indusvx
// first: the deck's own folder, protected by the sandbox, and the
// quarantine's home.
func Watch(p *Policy) *Watcher {
	if p == nil || p.Workspace == "" || !p.WriteWorkspace && !writesInside(*p) {
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

// writesInside reports whether one of p's write grants lies in its
// workspace.
func writesInside(p Policy) bool {
	for _, w := range p.Clean().Write {
		if rel, err := filepath.Rel(p.Workspace, w); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// WatchCmd is [Watch] of the policy of a cmd that [Wrap] prepared (nil
// for any other cmd). Call it before cmd starts.
//
// The repositories it finds below the top are written into cmd's policy,
// so that the mount tier binds their git code and config read-only too
// (see bindProtected).
func WatchCmd(cmd *exec.Cmd) *Watcher {
	for i := len(cmd.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(cmd.Env[i], EnvVar+"="); ok {
			var s spec
			if json.Unmarshal([]byte(v), &s) != nil {
				return nil
			}
			w := Watch(&s.Policy)
			if w != nil {
				s.Nested = w.nested()
				if b, err := json.Marshal(s); err == nil && len(s.Nested) > 0 {
					cmd.Env = append(slices.Clone(cmd.Env[:i]), cmd.Env[i+1:]...)
					cmd.Env = append(cmd.Env, EnvVar+"="+string(b))
				}
			}
			return w
		}
	}
	return nil
}

// nested lists the .git entries below the top that the watcher saw.
func (w *Watcher) nested() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for rel := range w.seen {
		if isNested(rel) {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// watched lists the protected paths that exist beneath root (but
// .indusvx, which is never swept into itself), not following a final
// symbolic link, and every .git below the top (see nestedGit).
func watched(root *os.Root) map[string]fs.FileInfo {
	m := make(map[string]fs.FileInfo)
	for _, rel := range []string{".indus", ".mcp.json", ".git"} {
		if fi, err := root.Lstat(rel); err == nil {
			m[rel] = fi
		}
	}
	for _, dir := range []struct {
		rel  string
		keep func(string) bool
	}{
		{".git", gitProtected},
		{".claude", func(n string) bool { ok, _ := path.Match("settings*.json", n); return ok }},
	} {
		d, err := root.Open(dir.rel)
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			if dir.keep(n) {
				if fi, err := root.Lstat(dir.rel + "/" + n); err == nil {
					m[dir.rel+"/"+n] = fi
				}
			}
		}
	}
	nestedGit(root, m)
	return m
}

// nestedWalkLimit bounds the folders nestedGit reads, so a sweep of a
// huge tree stays cheap; past it, a .git made deeper is not found.
const nestedWalkLimit = 20000

// nestedGit adds to m each .git (folder or file) below the top of root:
// git runs what another repository's config names when the user works in
// it, or, through a gitlink, when git status recurses into it. It does
// not descend into a .git, .indusvx, or a symbolic link, opens each
// folder from its parent's descriptor and takes the entries' types from
// the listing, without a stat each.
func nestedGit(root *os.Root, m map[string]fs.FileInfo) {
	top, err := root.Open(".")
	if err != nil {
		return
	}
	read := 0
	walkGit(root, top, ".", &read, m)
}

// walkGit is nestedGit beneath the open folder d (rel), which it closes.
func walkGit(root *os.Root, d *os.File, rel string, read *int, m map[string]fs.FileInfo) {
	if *read >= nestedWalkLimit {
		d.Close()
		return
	}
	*read++
	entries, _ := d.ReadDir(-1)
	defer d.Close()
	for _, e := range entries {
		name := e.Name()
		sub := name
		if rel != "." {
			sub = rel + "/" + name
		}
		switch {
		case strings.EqualFold(name, ".git"):
			if rel != "." {
				if fi, err := root.Lstat(sub); err == nil {
					m[sub] = fi
				}
			}
		case rel == "." && name == ".indusvx":
		case e.Type().IsDir():
			if f := openDirAt(d, name); f != nil {
				walkGit(root, f, sub, read, m)
			}
		}
	}
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
		if old, ok := w.seen[rel]; ok && same(old, now[rel], isNested(rel)) {
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
		delete(now, rel)
		notes = append(notes, fmt.Sprintf("[sandbox: the command made the protected path %s, which was moved to %s: a sandboxed command may not create %s (it could make later code run unconfined or unasked). %s]", rel, dest, rel, advice(rel)))
	}
	for rel := range now {
		if slices.ContainsFunc(moved, func(m string) bool { return strings.HasPrefix(rel, m+"/") }) {
			delete(now, rel)
		}
	}
	w.seen = now
	return notes
}

// same reports whether a protected path is as it was: the same file of
// the same type, and, for a .git pointer file below the top (which no
// bind keeps), not rewritten in place. The workspace's own protected
// files are bound read-only or not granted, so only someone outside the
// sandbox can rewrite them; that is not swept.
func same(old, now fs.FileInfo, nested bool) bool {
	if !os.SameFile(old, now) || old.Mode().Type() != now.Mode().Type() {
		return false
	}
	return !nested || !old.Mode().IsRegular() || old.Size() == now.Size() && old.ModTime().Equal(now.ModTime())
}

// isNested reports whether rel is a .git below the top.
func isNested(rel string) bool {
	return strings.Contains(rel, "/") && path.Base(rel) == ".git" && !strings.HasPrefix(rel, ".git/")
}

func advice(rel string) string {
	if rel == ".git" || strings.HasSuffix(rel, "/.git") {
		return "Run git init or git clone yourself, or with --sandbox off."
	}
	if IsGitProtected(rel) {
		return "Neither a sandboxed command nor the write tool changes git's code and config: ask the user to run the git command (git config, git submodule, git worktree) outside the sandbox."
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
