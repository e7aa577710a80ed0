package search

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/internal/walk"
	"github.com/indusagi/induscode/tool"
)

type findInput struct {
	Pattern string `json:"pattern" jsonschema:"Glob to match file paths against, e.g. \"**/*.go\", \"src/**/*_test.ts\" or \"*.{json,yaml}\". A pattern without / matches file names at any depth; one with / matches the path relative to path. ** spans directories."`
	Path    string `json:"path,omitempty" jsonschema:"Directory to search in; relative paths are resolved against the working directory. Default: the working directory."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Most files to return, newest first (default 100, at most 1000)."`
}

// FindTool returns find, which finds files by name.
func FindTool(o Options) tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "find",
		Label: "Find files by name",
		Description: "Find files whose path matches a glob (** spans directories, {a,b} alternates), newest first. " +
			"Honors .gitignore, .ignore and .git/info/exclude, includes hidden files and skips .git and other " +
			"version-control directories and induscode's state folder .indusvx. Paths are relative to the working directory. Use it to locate files " +
			"before reading them; use grep to search their contents.",
		ReadOnly: true,
	}, func(ctx context.Context, in findInput, env *tool.Env) tool.Result {
		return runFind(ctx, in, env, o)
	}, findSchema))
}

// findSchema adjusts find's inferred schema, once per process.
var findSchema = tool.WithSchema(func(s *jsonschema.Schema) {
	tool.SetDefault(s, "limit", DefaultFindLimit)
	tool.SetRange(s, "limit", 1, MaxFindLimit)
	tool.SetDefault(s, "path", ".")
})

// namePattern is a compiled find pattern.
type namePattern struct {
	glob     string // doublestar pattern
	anchored bool   // matched against the path relative to the root; else the base name
	suffix   string // for "*.ext"-style name patterns: a plain suffix test
	plain    bool   // suffix is usable
}

// compileFindPattern splits a find pattern into the directory to walk and
// the glob to match below it: "src/**/*.go" walks only src. A pattern with
// no slash matches base names at any depth (as ripgrep's and fd's globs
// do), and "**/name" is the same thing.
func compileFindPattern(pattern string) (base string, np namePattern, err error) {
	p := strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(pattern)), "./")
	if p == "" {
		return "", np, fmt.Errorf("pattern is empty; give a glob such as \"**/*.go\"")
	}
	if strings.HasSuffix(p, "/") {
		return "", np, fmt.Errorf("pattern %q ends with /, but find lists files; add a file glob, e.g. %q", pattern, p+"**/*")
	}
	if !doublestar.ValidatePattern(p) {
		return "", np, fmt.Errorf("pattern %q is not a valid glob (check [ ] and { } pairs); use *, ?, **, [abc] and {a,b}", pattern)
	}
	base = "."
	if strings.Contains(p, "/") {
		b, rest := doublestar.SplitPattern(p)
		if b != "." && rest != "" {
			base, p = b, rest
		}
		np.anchored = true
	}
	if rest, ok := strings.CutPrefix(p, "**/"); ok && !strings.Contains(rest, "/") && rest != "**" {
		np.anchored = false
		p = rest
	}
	np.glob = p
	if !np.anchored && strings.HasPrefix(p, "*") && !strings.ContainsAny(p[1:], `*?[\{}`) {
		np.suffix, np.plain = p[1:], true
	}
	return base, np, nil
}

func (np *namePattern) match(rel, name string) bool {
	switch {
	case np.plain:
		return strings.HasSuffix(name, np.suffix)
	case np.anchored:
		return doublestar.MatchUnvalidated(np.glob, rel)
	}
	return doublestar.MatchUnvalidated(np.glob, name)
}

// found is one file find reports.
type found struct {
	path  string
	mtime time.Time
}

func runFind(ctx context.Context, in findInput, env *tool.Env, o Options) tool.Result {
	base, np, err := compileFindPattern(in.Pattern)
	if err != nil {
		return tool.Errorf("find: %v", err)
	}
	dir := in.Path
	where := in.Path
	if strings.TrimSpace(dir) == "" {
		dir, where = ".", "the working directory"
	}
	if base != "." {
		if filepath.IsAbs(base) {
			dir = base
		} else {
			dir = path.Join(filepath.ToSlash(dir), base)
		}
	}
	root, _, err := resolveSearchRoot(env, dir, false)
	if err != nil {
		return tool.Errorf("find: %v", err)
	}
	limit := cmp.Or(in.Limit, DefaultFindLimit)
	bctx, cancel := context.WithTimeoutCause(ctx, o.budget(), errBudget)
	defer cancel()

	workers := walk.Workers(o.Workers)
	per := make([][]found, workers)
	var stats walk.Stats
	cfg := walk.Config{
		Root:    root,
		Workers: workers,
		Filter: walk.Filter{
			Keep: func(rel, name string, isDir bool) bool {
				return isDir || np.match(rel, name)
			},
			NeedRel: np.anchored,
		},
		Visit: func(w int, f walk.File) {
			mtime, err := f.ModTime()
			if err != nil {
				return // gone since the directory was listed
			}
			per[w] = append(per[w], found{path: f.Path, mtime: mtime})
		},
		ByName: true,
	}
	walk.Walk(bctx, cfg, &stats)
	if ctx.Err() != nil {
		return tool.Errorf("find was cancelled before it finished (%v)", context.Cause(ctx))
	}
	all := slices.Concat(per...)
	total := len(all)
	if total > limit {
		selectFirst(all, limit, newestFirst)
		all = all[:limit]
	}
	slices.SortFunc(all, newestFirst)
	var sb strings.Builder
	if total == 0 {
		fmt.Fprintf(&sb, "No files match %q in %s.", in.Pattern, where)
		if d, ok := namesDirectory(env, in.Path, in.Pattern); ok {
			fmt.Fprintf(&sb, " %s is a directory and find lists files only; use the pattern %q to list the files under it, or ls to see its entries.", d, path.Join(filepath.ToSlash(in.Pattern), "**"))
		}
	}
	for i, f := range all {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(env.Rel(f.path))
	}
	if total > limit {
		fmt.Fprintf(&sb, "\n[Showing the %d most recently modified of %d matching files. Narrow the pattern or path, or raise limit (at most %d).]", limit, total, MaxFindLimit)
	}
	if context.Cause(bctx) == errBudget {
		fmt.Fprintf(&sb, "\n[Search stopped at its %s time budget: results are partial. Narrow the pattern or path.]", o.budget())
	}
	if n := stats.Unreadable(); n > 0 {
		fmt.Fprintf(&sb, "\n[%d %s could not be read and %s skipped (first: %s).]", n, plural(int(n), "directory", "directories"), plural(int(n), "was", "were"), stats.FirstError())
	}
	return tool.Text(sb.String())
}

// newestFirst orders by modification time, newest first, then by path.
func newestFirst(a, b found) int {
	if c := b.mtime.Compare(a.mtime); c != 0 {
		return c
	}
	return cmp.Compare(a.path, b.path)
}

// selectFirst reorders s so that its first k elements are the k smallest
// under cmp (in no order): a quickselect, so that only the k results shown
// need a full sort.
func selectFirst[T any](s []T, k int, cmp func(a, b T) int) {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// Median of three as the pivot keeps sorted input linear.
		mid := lo + (hi-lo)/2
		if cmp(s[mid], s[lo]) < 0 {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if cmp(s[hi], s[lo]) < 0 {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if cmp(s[hi], s[mid]) < 0 {
			s[hi], s[mid] = s[mid], s[hi]
		}
		pivot := s[mid]
		i, j := lo, hi
		for i <= j {
			for cmp(s[i], pivot) < 0 {
				i++
			}
			for cmp(pivot, s[j]) < 0 {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// namesDirectory reports whether a pattern without glob characters names an
// existing directory (relative to the search path), the likely reason a
// pattern such as "src" finds no files.
func namesDirectory(env *tool.Env, dir, pattern string) (string, bool) {
	if strings.ContainsAny(pattern, "*?[{") {
		return "", false
	}
	p := pattern
	if !filepath.IsAbs(p) && strings.TrimSpace(dir) != "" {
		p = filepath.Join(dir, p)
	}
	abs, err := env.Resolve(p)
	if err != nil {
		return "", false
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", false
	}
	return env.Rel(abs), true
}
