package files

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

type lsInput struct {
	Path   string   `json:"path,omitempty" jsonschema:"The directory to list: absolute, or relative to the working directory. Defaults to the working directory."`
	Limit  int      `json:"limit,omitempty" jsonschema:"How many entries to show at most."`
	Ignore []string `json:"ignore,omitempty" jsonschema:"Glob patterns of names to leave out, such as *.log or node_modules. A pattern ending in / matches directories only."`
}

const lsDescription = `List the entries of one directory, sorted by name.

- path may be absolute or relative to the working directory (default: the working directory).
- Directories end in /, symlinks show their target (name -> target), hidden entries are included; induscode's own state folder .indusvx is never listed.
- At most 500 entries are shown unless you set limit (up to 5000); a note says when the list was cut.
- ignore takes glob patterns matched against entry names (*.pyc, node_modules, build/); a pattern ending in / matches only directories.
- ls does not descend into subdirectories. To find files by name across a tree use find; to search contents use grep.`

// LsTool returns the ls tool.
func LsTool() tool.Tool { return lsToolOnce() }

// The tool keeps no state of its own (what a session shares lives in its
// tool.Env), so one value, with its schema compiled once, serves every deck.
var lsToolOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "ls",
		Label:       "List directory",
		Description: lsDescription,
		ReadOnly:    true,
	}, runLs, tool.WithSchema(func(s *jsonschema.Schema) {
		tool.SetDefault(s, "path", ".")
		tool.SetDefault(s, "limit", DefaultListLimit)
		tool.SetRange(s, "limit", 1, MaxListLimit)
		tool.NotNull(s, "ignore")
		tool.SetDefault(s, "ignore", []string{})
	})))
})

// lsBatch is how many entries ls asks the operating system for at a time;
// the listing never holds more than this plus limit entries.
const lsBatch = 1024

func runLs(ctx context.Context, in lsInput, env *tool.Env) tool.Result {
	p := in.Path
	if strings.TrimSpace(p) == "" {
		p = "."
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	abs, err := env.Resolve(p)
	if err != nil {
		return tool.Errorf("cannot list %q: %v", p, err)
	}
	shown := env.Rel(abs)
	ignore, err := compileIgnore(in.Ignore)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return openFailed(env, abs, err)
	}
	if !fi.IsDir() {
		return tool.Errorf("%s is %s, not a directory. Read it with read, or list its directory %s.", shown, kindOf(fi.Mode()), env.Rel(filepath.Dir(abs)))
	}
	d, err := os.Open(abs)
	if err != nil {
		return openFailed(env, abs, err)
	}
	defer d.Close()

	// Keep the first limit names in sort order without holding the whole
	// directory: a max-heap of the smallest names seen so far.
	keep := &nameHeap{}
	total, hidden := 0, 0
	for {
		batch, err := d.ReadDir(lsBatch)
		for _, e := range batch {
			if e.Name() == workspace.StateDir {
				continue // the agent's own state, not the project (as grep and find skip it)
			}
			if ignore.match(e) {
				hidden++
				continue
			}
			total++
			if keep.Len() < limit {
				heap.Push(keep, e)
			} else if e.Name() < (*keep)[0].Name() {
				(*keep)[0] = e
				heap.Fix(keep, 0)
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			return tool.Errorf("cannot list %s: %v", shown, atomicfile.Bare(err))
		}
		if err := ctx.Err(); err != nil {
			return tool.Errorf("listing %s was cancelled: %v", shown, context.Cause(ctx))
		}
	}
	entries := []fs.DirEntry(*keep)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })

	var sb strings.Builder
	for _, e := range entries {
		sb.WriteString(describe(abs, e))
		sb.WriteByte('\n')
	}
	switch {
	case total == 0 && hidden == 0:
		return tool.Text("(empty directory)")
	case total == 0:
		return tool.Textf("(no entries left: all %d matched ignore)", hidden)
	}
	var notes []string
	if total > len(entries) {
		notes = append(notes, fmt.Sprintf("Showing %d of %d entries, sorted by name. Raise limit (at most %d) or narrow with ignore to see the rest, or use find.", len(entries), total, MaxListLimit))
	}
	if hidden > 0 {
		notes = append(notes, fmt.Sprintf("%d entries left out by ignore.", hidden))
	}
	if len(notes) > 0 {
		sb.WriteString("\n[" + strings.Join(notes, " ") + "]")
	}
	return tool.Text(strings.TrimRight(sb.String(), "\n"))
}

// describe renders one entry (a name that is not UTF-8, or holds control
// characters, is shown quoted with Go escapes, as tool.PlainName does): "name", "name/" for a directory, and
// "name -> target" for a symlink, with "/" after a target that is a
// directory and "(broken)" after one that does not exist.
func describe(dir string, e fs.DirEntry) string {
	raw := e.Name()
	name := tool.PlainName(raw)
	switch t := e.Type(); {
	case t.IsDir():
		return name + "/"
	case t&fs.ModeSymlink != 0:
		full := filepath.Join(dir, raw)
		target, err := os.Readlink(full)
		target = tool.PlainName(target)
		if err != nil {
			return name + " -> ?"
		}
		fi, err := os.Stat(full)
		switch {
		case err != nil:
			return name + " -> " + target + " (broken)"
		case fi.IsDir():
			return name + " -> " + strings.TrimSuffix(target, "/") + "/"
		}
		return name + " -> " + target
	}
	return name
}

// ignoreSet is ls's compiled ignore patterns.
type ignoreSet struct {
	any, dirs []string // patterns for every entry, and for directories only
}

func compileIgnore(patterns []string) (ignoreSet, error) {
	var s ignoreSet
	for _, p := range patterns {
		dirOnly := strings.HasSuffix(p, "/")
		p = strings.TrimRight(p, "/")
		if p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return s, fmt.Errorf("ignore pattern %q is not a valid glob (%v); use *, ? and [...] classes", p, err)
		}
		if dirOnly {
			s.dirs = append(s.dirs, p)
		} else {
			s.any = append(s.any, p)
		}
	}
	return s, nil
}

func (s ignoreSet) match(e fs.DirEntry) bool {
	name := e.Name()
	for _, p := range s.any {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	if e.IsDir() {
		for _, p := range s.dirs {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
	}
	return false
}

// nameHeap is a max-heap of entries by name.
type nameHeap []fs.DirEntry

func (h nameHeap) Len() int           { return len(h) }
func (h nameHeap) Less(i, j int) bool { return h[i].Name() > h[j].Name() }
func (h nameHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nameHeap) Push(x any)        { *h = append(*h, x.(fs.DirEntry)) }
func (h *nameHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
