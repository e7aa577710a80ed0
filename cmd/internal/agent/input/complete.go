package input

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/indusagi/induscode/internal/walk"
)

// Completion bounds. MaxFiles keeps the @path list of a huge tree in a few
// megabytes (a path is ~60 bytes); past it the walk stops and the menu
// offers what it found. MenuRows is what fits under the input in a 24-row
// terminal beside the conversation.
const (
	MaxFiles      = 50_000
	MenuRows      = 8
	maxCandidates = 100
)

// Command is a slash command the program offers: Name without the slash.
type Command struct {
	Name    string
	Summary string
}

// Resource is an MCP resource that @server:uri names.
type Resource struct {
	Server string
	URI    string
	Name   string // the server's title for it, shown beside the reference
}

// Ref is the text after @ that names the resource.
func (r Resource) Ref() string { return r.Server + ":" + r.URI }

// kind is what the word at the cursor completes to.
type kind int

const (
	noCompletion kind = iota
	slashCompletion
	atCompletion
)

// word is the whitespace-delimited word under the cursor: its line, the
// rune columns it spans, and its text.
type word struct {
	line, start, end int
	text             string
}

// wordAt finds the word that ends at the cursor (line, col are the
// textarea's, col in runes).
func wordAt(value string, line, col int) word {
	lines := strings.Split(value, "\n")
	if line < 0 || line >= len(lines) {
		return word{}
	}
	rs := []rune(lines[line])
	if col > len(rs) {
		col = len(rs)
	}
	start := col
	for start > 0 && !isSpace(rs[start-1]) {
		start--
	}
	end := col
	for end < len(rs) && !isSpace(rs[end]) {
		end++
	}
	return word{line: line, start: start, end: end, text: string(rs[start:col])}
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' }

// completionKind says what w completes to: a slash command when it is the
// first word of the prompt, a file or resource when it starts with @.
func completionKind(w word) kind {
	switch {
	case strings.HasPrefix(w.text, "/") && w.line == 0 && w.start == 0:
		return slashCompletion
	case strings.HasPrefix(w.text, "@"):
		return atCompletion
	}
	return noCompletion
}

// candidate is one row of the completion menu: Insert replaces the word,
// Label and Detail are shown.
type candidate struct {
	Insert string
	Label  string
	Detail string
}

// matchCommands lists the commands whose name starts with q, then those
// that hold it, each group in the program's order.
func matchCommands(cmds []Command, q string) []candidate {
	q = strings.ToLower(q)
	var first, rest []candidate
	for _, c := range cmds {
		name := strings.ToLower(c.Name)
		cand := candidate{Insert: "/" + c.Name, Label: "/" + c.Name, Detail: c.Summary}
		switch {
		case strings.HasPrefix(name, q):
			first = append(first, cand)
		case strings.Contains(name, q):
			rest = append(rest, cand)
		}
	}
	return append(first, rest...)
}

// matchFiles ranks the workspace files holding q (case folded): a path
// that starts with q first, then a base name that does, then the rest;
// shorter paths first within a rank, then path order.
func matchFiles(files []string, q string) []candidate {
	q = strings.ToLower(q)
	type ranked struct {
		rank int
		path string
	}
	var hits []ranked
	for _, f := range files {
		lf := strings.ToLower(f)
		switch {
		case strings.HasPrefix(lf, q):
			hits = append(hits, ranked{0, f})
		case strings.HasPrefix(strings.ToLower(filepath.Base(f)), q):
			hits = append(hits, ranked{1, f})
		case strings.Contains(lf, q):
			hits = append(hits, ranked{2, f})
		}
	}
	slices.SortStableFunc(hits, func(a, b ranked) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if len(a.path) != len(b.path) {
			return len(a.path) - len(b.path)
		}
		return strings.Compare(a.path, b.path)
	})
	if len(hits) > maxCandidates {
		hits = hits[:maxCandidates]
	}
	out := make([]candidate, len(hits))
	for i, h := range hits {
		out[i] = candidate{Insert: "@" + h.path, Label: "@" + h.path}
	}
	return out
}

// matchResources lists the resources whose server:uri or title holds q.
func matchResources(res []Resource, q string) []candidate {
	q = strings.ToLower(q)
	var out []candidate
	for _, r := range res {
		if strings.Contains(strings.ToLower(r.Ref()), q) || strings.Contains(strings.ToLower(r.Name), q) {
			out = append(out, candidate{Insert: "@" + r.Ref(), Label: "@" + r.Ref(), Detail: r.Name})
		}
	}
	return out
}

// filesMsg brings the workspace's file list from the walk.
type filesMsg struct{ files []string }

// resourcesMsg brings the MCP resources the program listed.
type resourcesMsg struct {
	res []Resource
	err error
}

// listFiles walks root as grep and find do (ignore files obeyed, the state
// folder and links skipped) and returns the files relative to it, sorted,
// at most MaxFiles of them.
func listFiles(ctx context.Context, root string) []string {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var files []string
	walk.Walk(ctx, walk.Config{Root: root, Workers: 2, Visit: func(_ int, f walk.File) {
		rel, err := filepath.Rel(root, f.Path)
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if len(files) >= MaxFiles {
			cancel()
			return
		}
		files = append(files, filepath.ToSlash(rel))
	}}, nil)
	slices.Sort(files)
	return files
}

func loadFiles(root string) tea.Cmd {
	return func() tea.Msg { return filesMsg{files: listFiles(context.Background(), root)} }
}

func loadResources(list func(context.Context) ([]Resource, error)) tea.Cmd {
	return func() tea.Msg {
		res, err := list(context.Background())
		return resourcesMsg{res: res, err: err}
	}
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
