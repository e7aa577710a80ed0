package tui

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/linediff"
)

// Bounds of what a folded entry shows: a result's first lines, a diff's
// first lines. Ctrl-O shows them whole.
const (
	foldedResult = 4
	foldedDiff   = 16
)

// View draws the conversation, the question or input, and the status
// line, in the alternate screen.
func (m Model) View() tea.View {
	content, inputTop := m.layout()
	v := tea.NewView(content)
	if c := m.in.Cursor(); c != nil && inputTop >= 0 && m.ask == nil && m.pick == nil && m.list == nil {
		c.Y += inputTop
		v.Cursor = c
	}
	v.AltScreen = true
	v.WindowTitle = "indusr"
	return v
}

// screen is the whole screen as text: every line within the width.
func (m Model) screen() string {
	s, _ := m.layout()
	return s
}

// layout is the screen and the line the input starts on (-1: none).
func (m Model) layout() (string, int) {
	bottom, above := m.bottom()
	h := max(m.height-1-lineCount(bottom), 1)
	lines := m.conv.window(h)
	for len(lines) < h {
		lines = append(lines, "")
	}
	out := append(lines, strings.Split(bottom, "\n")...)
	out = append(out, m.statusLine())
	for i, l := range out {
		if ansi.StringWidth(l) > m.width {
			out[i] = ansi.Truncate(l, m.width, "…")
		}
	}
	top := -1
	if above >= 0 {
		top = h + above
	}
	return strings.Join(out, "\n"), top
}

// bottom is what sits under the conversation: a note, then the question
// being asked or the input, and how many of its lines come before the
// input (-1 when the input is not shown).
func (m Model) bottom() (string, int) {
	var parts []string
	above := -1
	if m.note != "" {
		parts = append(parts, paint(m.st.warn, wrap(m.note, m.width)))
	}
	switch {
	case m.list != nil:
		parts = append(parts, m.list.p.View())
	case m.pick != nil:
		parts = append(parts, m.confirmView())
	case m.ask != nil:
		parts = append(parts, m.askView())
	default:
		if m.running {
			parts = append(parts, paint(m.st.dim, fmt.Sprintf("· working %s (esc to interrupt)", since(m.cfg.Now().Sub(m.started)))))
		}
		above = lineCount(strings.Join(parts, "\n"))
		parts = append(parts, m.in.View())
	}
	return strings.Join(parts, "\n"), above
}

// statusLine is the model, the context used, the cost, the session and
// the mode.
func (m Model) statusLine() string {
	ctx := fmt.Sprintf("%s tokens", short(m.tokens))
	if m.window > 0 {
		ctx = fmt.Sprintf("%s/%s (%d%%)", short(m.tokens), short(m.window), m.tokens*100/m.window)
	}
	id := m.session
	if len(id) > 8 {
		id = id[len(id)-8:]
	}
	model := m.model
	if _, name, ok := strings.Cut(model, "/"); ok {
		model = name
	}
	parts := []string{model, ctx, fmt.Sprintf("$%.2f", m.cost)}
	if id != "" {
		parts = append(parts, id)
	}
	// The conductor's mode is the truth: an approved plan leaves plan
	// mode without a key pressed here.
	mode := string(m.b.Mode())
	return paint(m.st.mode, mode) + paint(m.st.status, " · "+strings.Join(parts, " · "))
}

func short(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 100_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func since(d time.Duration) string {
	if d < time.Second {
		return "0s"
	}
	return d.Round(time.Second).String()
}

// window is the last h lines of the conversation, scrolled.
func (c *conversation) window(h int) []string {
	all := c.all()
	c.scroll = min(c.scroll, max(len(all)-h, 0))
	end := len(all) - c.scroll
	return append([]string(nil), all[max(end-h, 0):end]...)
}

// all is every entry's lines, a blank line between entries.
func (c *conversation) all() []string {
	if c.lines != nil {
		return c.lines
	}
	var out []string
	for i, e := range c.entries {
		if e.lines == nil || e.w != c.s.width || e.ex != c.expanded {
			e.lines, e.w, e.ex = strings.Split(c.s.render(e, c.expanded), "\n"), c.s.width, c.expanded
		}
		if i > 0 && !(e.kind == toolEntry && c.entries[i-1].kind == toolEntry) {
			out = append(out, "")
		}
		out = append(out, e.lines...)
	}
	if out == nil {
		out = []string{}
	}
	c.lines = out
	return out
}

// render draws one entry at the state's width.
func (s *state) render(e *entry, expanded bool) string {
	w := s.width
	switch e.kind {
	case userEntry:
		mark := "> "
		if e.queued {
			mark = "> (queued) "
		}
		return paint(s.st.user, indent(wrap(e.text, w-2), mark, "  "))
	case textEntry:
		if e.streaming {
			return s.streamedMarkdown(e, w)
		}
		return s.md.render(e.text, w)
	case thinkingEntry:
		if !expanded && !e.streaming {
			first, _, _ := strings.Cut(strings.TrimSpace(e.text), "\n")
			return paint(s.st.dim, ansi.Truncate("✻ Thinking: "+first, w, "…")+" (ctrl+o)")
		}
		return paint(s.st.dim, indent(wrap(e.text, w-2), "✻ ", "  "))
	case toolEntry:
		return s.toolView(e, expanded)
	case noticeEntry:
		return paint(s.st.dim, indent(wrap(e.text, w-2), "※ ", "  "))
	case errorEntry:
		return paint(s.st.bad, indent(wrap(e.text, w-2), "✗ ", "  "))
	}
	return ""
}

// restream is how often a streaming answer is rendered as Markdown
// again. Rendering the whole text at every piece would cost more the
// longer the answer grows (a piece comes every 20 ms at 200 tokens/s);
// between renders the text that came since is shown as it came, wrapped.
const restream = 100 * time.Millisecond

func (s *state) streamedMarkdown(e *entry, w int) string {
	now := s.cfg.Now()
	if e.md == "" || e.w != w || now.Sub(e.mdAt) >= restream {
		e.md, e.mdLen, e.mdAt = s.md.render(e.text, w), len(e.text), now
		return e.md
	}
	tail := e.text[e.mdLen:]
	if tail == "" {
		return e.md
	}
	return e.md + "\n" + indent(wrap(strings.TrimLeft(tail, "\n"), w-2), "  ", "  ")
}

// toolView is a call's line (mark, tool, key argument, state, time) and
// under it the diff of a change, the latest output of a running command,
// or the result's first lines (all of it when expanded).
func (s *state) toolView(e *entry, expanded bool) string {
	w := s.width
	var mark, tail string
	switch e.state {
	case toolPreparing:
		mark, tail = paint(s.st.dim, "○"), paint(s.st.dim, "…")
	case toolRunning:
		mark, tail = paint(s.st.warn, "◐"), paint(s.st.dim, "running")
	case toolDone:
		mark, tail = paint(s.st.ok, "●"), paint(s.st.dim, since(e.took))
		if e.replayed {
			tail = paint(s.st.dim, "done")
		}
	case toolFailed:
		mark, tail = paint(s.st.bad, "✗"), paint(s.st.bad, "failed")
	case toolRefused:
		mark, tail = paint(s.st.bad, "⊘"), paint(s.st.bad, "refused")
	}
	arg := keyArg(e.name, e.input)
	room := w - ansi.StringWidth(e.name) - ansi.StringWidth(ansi.Strip(tail)) - 5
	if room < 4 {
		arg = ""
	} else {
		arg = ansi.Truncate(oneLine(arg), room, "…")
	}
	head := mark + " " + paint(s.st.tool, e.name)
	if arg != "" {
		head += " " + arg
	}
	head += "  " + tail
	body := s.toolBody(e, expanded)
	if body == "" {
		return head
	}
	return head + "\n" + body
}

func (s *state) toolBody(e *entry, expanded bool) string {
	w := s.width - 4
	switch {
	case e.state == toolRunning && e.live != "":
		return paint(s.st.dim, indent(ansi.Truncate(oneLine(e.live), w, "…"), "  ⎿ ", "    "))
	case e.diff != "":
		return indent(s.colorDiff(e.diff, w, expanded), "  ⎿ ", "    ")
	case e.state == toolDone || e.state == toolFailed || e.state == toolRefused:
		text := strings.TrimRight(e.text, "\n")
		if text == "" {
			return ""
		}
		lines := strings.Split(wrap(text, w), "\n")
		if !expanded && len(lines) > foldedResult {
			more := len(lines) - foldedResult
			lines = append(lines[:foldedResult], fmt.Sprintf("… %s more (ctrl+o)", plural(more, "line")))
		}
		st := s.st.dim
		if e.state != toolDone {
			st = s.st.bad
		}
		return paint(st, indent(strings.Join(lines, "\n"), "  ⎿ ", "    "))
	}
	return ""
}

// colorDiff colours a unified diff's lines, cut to w columns, folded
// unless expanded.
func (s *state) colorDiff(diff string, w int, expanded bool) string {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	more := 0
	if !expanded && len(lines) > foldedDiff {
		more = len(lines) - foldedDiff
		lines = lines[:foldedDiff]
	}
	for i, l := range lines {
		l = ansi.Truncate(strings.ReplaceAll(l, "\t", "    "), w, "…")
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			l = paint(s.st.tool, l)
		case strings.HasPrefix(l, "+"):
			l = paint(s.st.add, l)
		case strings.HasPrefix(l, "-"):
			l = paint(s.st.del, l)
		case strings.HasPrefix(l, "@@"):
			l = paint(s.st.hunk, l)
		}
		lines[i] = l
	}
	if more > 0 {
		lines = append(lines, paint(s.st.dim, fmt.Sprintf("… %s more (ctrl+o)", plural(more, "line"))))
	}
	return strings.Join(lines, "\n")
}

// fileDiff is the unified diff of a write or edit, from what the file
// held before the call to what it holds now.
func fileDiff(before, after fileState) string {
	if !before.ok || !after.ok {
		return ""
	}
	a, b := linediff.Lines(before.text), linediff.Lines(after.text)
	from, to := "a/"+filepath.ToSlash(before.path), "b/"+filepath.ToSlash(before.path)
	if !before.exists {
		a, from = nil, "/dev/null"
	}
	cs := linediff.Diff(a, b)
	if len(cs) == 0 {
		return ""
	}
	d, _ := linediff.Unified(from, to, a, b, cs, linediff.Options{Context: 2, StripCR: true, MaxBytes: 64 << 10})
	return d
}

// keyArg is the argument that says what a call does: a command, a path,
// a pattern, an address.
func keyArg(name string, input json.RawMessage) string {
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	for _, k := range []string{"command", "path", "file_path", "pattern", "url", "query", "description", "id", "name"} {
		if v, ok := in[k].(string); ok && v != "" {
			if k == "url" {
				if u, err := url.Parse(v); err == nil && u.Host != "" {
					return u.Host + u.Path
				}
			}
			return v
		}
	}
	return ""
}

// wrap breaks text into lines of at most w columns, at spaces where it
// can.
func wrap(text string, w int) string {
	if w < 1 {
		w = 1
	}
	return ansi.Hardwrap(ansi.Wordwrap(text, w, ""), w, true)
}

// indent puts first before the first line and rest before the others.
func indent(text, first, rest string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = first + l
		} else {
			lines[i] = rest + l
		}
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

func stripANSI(s string) string { return ansi.Strip(s) }

var _ = conductor.Default
