package tui

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/lipgloss/v2"
)

// styles are the looks of the conversation's parts. With color off
// (NO_COLOR set, a dumb terminal) they are plain, so the screen holds no
// escape sequence but the cursor's.
type styles struct {
	color                          bool
	user, dim, tool, ok, bad, warn lipgloss.Style
	add, del, hunk, status, mode   lipgloss.Style
	box                            lipgloss.Style
}

func newStyles(color bool) styles {
	if !color {
		p := lipgloss.NewStyle()
		return styles{user: p, dim: p, tool: p, ok: p, bad: p, warn: p, add: p, del: p, hunk: p, status: p, mode: p, box: p}
	}
	c := lipgloss.Color
	return styles{
		color:  true,
		user:   lipgloss.NewStyle().Bold(true),
		dim:    lipgloss.NewStyle().Faint(true),
		tool:   lipgloss.NewStyle().Bold(true),
		ok:     lipgloss.NewStyle().Foreground(c("2")),
		bad:    lipgloss.NewStyle().Foreground(c("1")),
		warn:   lipgloss.NewStyle().Foreground(c("3")),
		add:    lipgloss.NewStyle().Foreground(c("2")),
		del:    lipgloss.NewStyle().Foreground(c("1")),
		hunk:   lipgloss.NewStyle().Foreground(c("6")),
		status: lipgloss.NewStyle().Faint(true),
		mode:   lipgloss.NewStyle().Bold(true).Foreground(c("5")),
		box:    lipgloss.NewStyle().Foreground(c("3")),
	}
}

// colorOn says whether the environment wants colour: not when NO_COLOR
// is set (to anything, as no-color.org asks) or TERM is dumb or unset.
func colorOn(env []string) bool {
	term := ""
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "NO_COLOR":
			if v != "" {
				return false
			}
		case "TERM":
			term = v
		}
	}
	return term != "" && term != "dumb"
}

// markdown renders Markdown to the terminal at a width, keeping one
// renderer per width (making one parses a style sheet).
type markdown struct {
	color bool
	by    map[int]*glamour.TermRenderer
}

func (md *markdown) render(text string, width int) string {
	if md.by == nil {
		md.by = map[int]*glamour.TermRenderer{}
	}
	r := md.by[width]
	if r == nil {
		style := "ascii"
		if md.color {
			style = "dark"
		}
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width))
		if err != nil {
			return wrap(text, width)
		}
		md.by[width] = r
	}
	out, err := r.Render(text)
	if err != nil {
		return wrap(text, width)
	}
	return trimBlank(out)
}

// trimBlank drops the blank lines a renderer puts around a document and
// the spaces it pads lines with.
func trimBlank(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

func blank(l string) bool { return strings.TrimSpace(stripANSI(l)) == "" }

// paint renders each line of text in st on its own: lipgloss pads the
// lines of one block to a common width, which would leave trailing
// spaces on every shorter line.
func paint(st lipgloss.Style, text string) string {
	if !strings.Contains(text, "\n") {
		return st.Render(text)
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return strings.Join(lines, "\n")
}
