package search

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/internal/linematch"
	"github.com/indusagi/induscode/internal/walk"
	"github.com/indusagi/induscode/tool"
)

// Options tune the search tools; the zero value is what the catalog uses.
type Options struct {
	// Budget is how long a call may run before it returns partial results
	// with a notice; 0 means DefaultBudget.
	Budget time.Duration
	// Workers is the parallelism of the walk; 0 means one per CPU.
	Workers int
	// Index, when set, lets grep skip the files it proves hold no
	// match; nil scans every file.
	Index Narrower
}

func (o Options) budget() time.Duration {
	if o.Budget > 0 {
		return o.Budget
	}
	return DefaultBudget
}

// errBudget is the cause of a search context that ran out of budget.
var errBudget = errors.New("search time budget exhausted")

type GrepInput struct {
	Pattern         string `json:"pattern" jsonschema:"Regular expression (RE2 syntax, like ripgrep's) to search file contents for, e.g. \"func\\s+\\w+\" or \"log.*Error\". Set literal to search for the text as written."`
	Path            string `json:"path,omitempty" jsonschema:"File or directory to search; relative paths are resolved against the working directory. Default: the working directory."`
	Glob            string `json:"glob,omitempty" jsonschema:"Only search files whose name matches this glob, e.g. \"*.go\", \"*.{ts,tsx}\" or \"src/**/*.py\"; prefix with ! to exclude. Several globs may be separated by spaces."`
	Type            string `json:"type,omitempty" jsonschema:"Only search files of this type (ripgrep's names): go, py, js, ts, rust, java, c, cpp, md, json, yaml, … Faster than glob for standard types."`
	OutputMode      string `json:"output_mode,omitempty" jsonschema:"files_with_matches (default) lists matching files; content shows matching lines (with line numbers and optional context); count gives matching lines per file."`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema:"Ignore letter case."`
	LineNumbers     *bool  `json:"line_numbers,omitempty" jsonschema:"Show line numbers in content mode (default true)."`
	Before          int    `json:"before,omitempty" jsonschema:"Lines of context to show before each match (content mode)."`
	After           int    `json:"after,omitempty" jsonschema:"Lines of context to show after each match (content mode)."`
	Context         int    `json:"context,omitempty" jsonschema:"Lines of context before and after each match (content mode); before and after override it."`
	Multiline       bool   `json:"multiline,omitempty" jsonschema:"Let the pattern span lines: . matches a line break and ^/$ match at every line. Slower; use only when needed."`
	Literal         bool   `json:"literal,omitempty" jsonschema:"Treat pattern as plain text, not a regular expression."`
	Word            bool   `json:"word,omitempty" jsonschema:"Match whole words only (like rg -w): no letter, digit or underscore right before or after the match, so \"log\" finds log( but not logger or blog."`
	HeadLimit       *int   `json:"head_limit,omitempty" jsonschema:"Show at most this many entries (files, count lines or output lines); default 250, 0 for no limit."`
	Offset          int    `json:"offset,omitempty" jsonschema:"Skip this many entries first, to page through long results with head_limit."`
}

// GrepTool returns grep, which searches file contents.
func GrepTool(o Options) tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "grep",
		Label: "Search file contents",
		Description: "Search the contents of files under a directory for a regular expression, fast (ripgrep's " +
			"engine design, in-process). Honors .gitignore, .ignore and .git/info/exclude, searches hidden files, " +
			"skips .git and other version-control directories, induscode's state folder .indusvx and binary files. Paths in the result are relative " +
			"to the working directory and sorted. By default lists the matching files; output_mode content shows " +
			"the lines (path:line:text, context lines as path-line-text), count shows matching lines per file. " +
			"Narrow with glob or type; page with head_limit and offset. Prefer this over running grep or rg in a shell.",
		ReadOnly: true,
	}, func(ctx context.Context, in GrepInput, env *tool.Env) tool.Result {
		return runGrep(ctx, in, env, o)
	}, grepSchema))
}

// grepSchema adjusts grep's inferred schema. It is a package value, so
// the schema is built once per process although decks are built per
// session.
var grepSchema = tool.WithSchema(func(s *jsonschema.Schema) {
	modes := make([]string, len(outputModes))
	for i, m := range outputModes {
		modes[i] = m.String()
	}
	tool.SetEnum(s, "output_mode", modes...)
	tool.SetDefault(s, "output_mode", "files_with_matches")
	tool.NotNull(s, "line_numbers")
	tool.SetDefault(s, "line_numbers", true)
	tool.NotNull(s, "head_limit")
	tool.SetDefault(s, "head_limit", DefaultHeadLimit)
	for _, k := range []string{"before", "after", "context"} {
		tool.SetRange(s, k, 0, MaxContextLines)
	}
	tool.SetMinimum(s, "head_limit", 0)
	tool.SetMinimum(s, "offset", 0)
	tool.SetDefault(s, "path", ".")
})

func parseMode(s string) (outputMode, error) {
	if s == "" {
		return modeFiles, nil
	}
	for _, m := range outputModes {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("output_mode %q is not one of files_with_matches, content, count", s)
}

// grepPlan is a validated grep call.
type grepPlan struct {
	q       *linematch.Query
	mode    outputMode
	root    string // absolute
	isFile  bool
	filter  walk.Filter
	scan    scanOptions
	limit   int
	offset  int
	numbers bool
	where   string
	skip    func(path string) bool // from Options.Index; nil: scan all
	list    []string               // from Options.Index, when listed: the files to search
	listed  bool
}

func planGrep(in GrepInput, env *tool.Env) (*grepPlan, error) {
	p := &grepPlan{offset: in.Offset, limit: DefaultHeadLimit, numbers: true, where: "the working directory"}
	var err error
	if p.mode, err = parseMode(in.OutputMode); err != nil {
		return nil, err
	}
	if p.q, err = linematch.Compile(in.Pattern, linematch.Options{
		Literal: in.Literal, CaseInsensitive: in.CaseInsensitive, Multiline: in.Multiline, Word: in.Word,
	}); err != nil {
		return nil, err
	}
	if in.HeadLimit != nil {
		p.limit = *in.HeadLimit
	}
	if in.LineNumbers != nil {
		p.numbers = *in.LineNumbers
	}
	path := in.Path
	if strings.TrimSpace(path) == "" {
		path = "."
	} else {
		p.where = in.Path
	}
	if p.root, p.isFile, err = resolveSearchRoot(env, path, true); err != nil {
		return nil, err
	}
	if p.filter, err = grepFilter(in.Glob, in.Type); err != nil {
		return nil, err
	}
	before, after := in.Context, in.Context
	if in.Before > 0 {
		before = in.Before
	}
	if in.After > 0 {
		after = in.After
	}
	p.scan = scanOptions{mode: p.mode, before: before, after: after, shortReadEnds: shortReadEnds(p.root)}
	if p.mode == modeContent && p.limit > 0 {
		p.scan.keep = p.offset + p.limit
	}
	return p, nil
}

// resolveSearchRoot resolves a model-supplied path and checks that it is
// something to search: a directory, or (when files are allowed) a regular
// file.
func resolveSearchRoot(env *tool.Env, path string, filesOK bool) (string, bool, error) {
	abs, err := env.Resolve(path)
	if err != nil {
		return "", false, fmt.Errorf("path %q: %v", path, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, fmt.Errorf("path %q does not exist (resolved to %s); check the spelling, or omit path to search the working directory", path, abs)
	case err != nil:
		return "", false, fmt.Errorf("cannot search %s: %v", abs, err)
	case fi.IsDir():
		return abs, false, nil
	case fi.Mode().IsRegular() && filesOK:
		return abs, true, nil
	case fi.Mode().IsRegular():
		return "", false, fmt.Errorf("path %q is a file; give the directory to search in", path)
	}
	return "", false, fmt.Errorf("path %q is not a regular file or directory (%s); it cannot be searched", path, fi.Mode().Type())
}

// grepFilter builds the walk filter of grep's glob and type inputs.
func grepFilter(glob, typ string) (walk.Filter, error) {
	var f walk.Filter
	if err := f.SetGlobs(splitGlobs(glob)); err != nil {
		return f, err
	}
	if typ != "" {
		if err := f.SetTypes(typ); err != nil {
			return f, err
		}
	}
	return f, nil
}

// splitGlobs splits grep's glob input: spaces separate globs, and so do
// commas outside braces ("*.go,*.md" and "*.{go,md}" both work).
func splitGlobs(s string) []string {
	var out []string
	for _, field := range strings.Fields(s) {
		if strings.ContainsAny(field, "{}") {
			out = append(out, field)
			continue
		}
		for _, g := range strings.Split(field, ",") {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	return out
}

func runGrep(ctx context.Context, in GrepInput, env *tool.Env, o Options) tool.Result {
	p, err := planGrep(in, env)
	if err != nil {
		return tool.Errorf("grep: %v", err)
	}
	p.narrow(o)
	if p.mode == modeContent {
		return runContent(ctx, p, in, env, o)
	}
	bctx, cancel := context.WithTimeoutCause(ctx, o.budget(), errBudget)
	defer cancel()

	var (
		stats    walk.Stats
		binary   atomic.Int64
		tooLarge atomic.Int64
	)
	workers := walk.Workers(o.Workers)
	if p.isFile {
		workers = 1
	}
	scanners := make([]*scanner, workers)
	hits := make([][]fileHit, workers)
	visit := func(w int, f walk.File) {
		if bctx.Err() != nil || p.skipped(f.Path) {
			f.Release()
			return
		}
		sc := scanners[w]
		if sc == nil {
			sc = newScanner(p.q, p.scan)
			scanners[w] = sc
		}
		h := &sc.spare
		ok, err := sc.scanFile(bctx, f, h)
		switch {
		case errors.Is(err, errBinary):
			binary.Add(1)
		case errors.Is(err, errTooLarge):
			tooLarge.Add(1)
		case err != nil && bctx.Err() == nil:
			stats.Fail(err)
		case ok:
			hits[w] = append(hits[w], *h)
		}
	}
	if p.isFile {
		visit(0, walk.FileAt(p.root))
	} else if p.listed {
		visitListed(bctx, p.list, workers, visit)
	} else {
		walk.Walk(bctx, walk.Config{Root: p.root, Filter: p.filter, Visit: visit, Workers: workers, ByName: true}, &stats)
	}
	if ctx.Err() != nil {
		return tool.Errorf("grep was cancelled before it finished (%v)", context.Cause(ctx))
	}
	all := slices.Concat(hits...)
	for i := range all {
		all[i].rel = env.Rel(all[i].path)
	}
	slices.SortFunc(all, func(a, b fileHit) int { return cmp.Compare(a.rel, b.rel) })
	split := 0
	for _, sc := range scanners {
		if sc != nil {
			split += sc.split
			sc.release()
		}
	}
	r := &report{
		mode: p.mode, hits: all,
		offset: p.offset, limit: p.limit, numbers: p.numbers,
		pattern: in.Pattern, where: p.where,
		notices: searchNotices(noticeInput{
			budget: context.Cause(bctx) == errBudget, o: o,
			binaryFile: p.isFile && binary.Load() > 0, root: env.Rel(p.root),
			tooLarge: tooLarge.Load(), split: int64(split),
			unreadable: stats.Unreadable(), firstErr: stats.FirstError(),
		}),
	}
	return tool.Text(r.render())
}

// runContent is grep's content mode: lines are written in path order as
// they are found, to the caller's text stream when there is one (the
// result then holds only what follows the lines), else into the result.
func runContent(ctx context.Context, p *grepPlan, in GrepInput, env *tool.Env, o Options) tool.Result {
	stream := tool.TextStream(ctx)
	var body bytes.Buffer
	c := &contentWriter{
		w: &body, offset: p.offset, limit: p.limit, numbers: p.numbers,
		context: p.scan.before > 0 || p.scan.after > 0,
	}
	if stream != nil {
		c.w = stream
	}
	bctx, cancel := context.WithTimeoutCause(ctx, o.budget(), errBudget)
	defer cancel()
	r := newStreamRun(bctx, env, p, o, c.line)
	// Lines found before a slow file are shown while it is searched.
	r.idle = func() { c.flush() }
	err := r.run()
	if ferr := c.flush(); err == nil || errors.Is(err, errEnough) {
		err = ferr
	}
	if ctx.Err() != nil {
		return tool.Errorf("grep was cancelled before it finished (%v)", context.Cause(ctx))
	}
	if err != nil && !errors.Is(err, errEnough) {
		return tool.Errorf("grep: %v", err)
	}
	parts := []string{strings.TrimSuffix(body.String(), "\n")}
	if stream != nil || body.Len() == 0 {
		parts = parts[:0]
	}
	if f := c.footer(in.Pattern, p.where); f != "" {
		parts = append(parts, f)
	}
	parts = append(parts, r.notices(p, env, o)...)
	return tool.Text(strings.Join(parts, "\n"))
}

// noticeInput is what the notices of a search are worded from.
type noticeInput struct {
	budget     bool // the time budget ran out
	o          Options
	binaryFile bool   // the one file searched is binary
	root       string // the searched path, as shown
	tooLarge   int64  // files over the multiline limit
	split      int64  // lines over maxLineBuffer
	unreadable int64
	firstErr   string
}

// searchNotices words what left a grep result partial.
func searchNotices(n noticeInput) []string {
	var out []string
	if n.budget {
		out = append(out, fmt.Sprintf("[Search stopped at its %s time budget: results are partial. Narrow path, glob or type, or use a more specific pattern.]", n.o.budget()))
	}
	if n.binaryFile {
		out = append(out, fmt.Sprintf("[%s is a binary file (it contains NUL bytes); grep does not search binary files.]", n.root))
	}
	if n.tooLarge > 0 {
		out = append(out, fmt.Sprintf("[Skipped %d %s larger than %d MB: multiline search holds a file in memory whole. Search them without multiline.]", n.tooLarge, plural(int(n.tooLarge), "file", "files"), maxMultilineFile>>20))
	}
	if n.split > 0 {
		out = append(out, fmt.Sprintf("[%d %s longer than %d MB %s searched in pieces of that size: a match that spans two pieces is not found.]", n.split, plural(int(n.split), "line", "lines"), maxLineBuffer>>20, plural(int(n.split), "was", "were")))
	}
	if n.unreadable > 0 {
		out = append(out, fmt.Sprintf("[%d %s could not be read and %s skipped (first: %s).]", n.unreadable, plural(int(n.unreadable), "path", "paths"), plural(int(n.unreadable), "was", "were"), n.firstErr))
	}
	return out
}
