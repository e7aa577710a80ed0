package tui

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/indusagi/induscode/deck/checkpoint"
)

// confirm is a yes/no question of the terminal's own: a rewind, with
// the diff it would apply.
type confirm struct {
	title string
	body  string
	yes   func() tea.Cmd
}

// cmdRewind shows what undoing a prompt's changes would do and asks.
// Rewinding a prompt undoes the prompts after it too (their checkpoint
// nodes are later ones).
func cmdRewind(m Model, arg string) tea.Cmd {
	if m.running {
		m.note = "A prompt is running: press esc first."
		return nil
	}
	if arg == "" {
		return pickRewind(m)
	}
	nth := 1
	if arg != "" {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			m.note = "/rewind takes the number of the prompt counted from the last: /rewind, /rewind 2."
			return nil
		}
		nth = n
	}
	idx := -1
	for i, seen := len(m.prompts)-1, 0; i >= 0; i-- {
		if m.prompts[i].node == "" {
			continue
		}
		if seen++; seen == nth {
			idx = i
			break
		}
	}
	store := m.b.Checkpoints()
	if idx < 0 || store == nil {
		return m.say("No prompt of this terminal changed files to undo. `indusr rewind list` shows older checkpoints.")
	}
	dir := m.b.Dir()
	plan, err := checkpoint.NewPlan(store, m.prompts[idx].node, []string{dir})
	if err != nil {
		return m.say("Cannot rewind: " + err.Error())
	}
	name := func(p string) string {
		if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	if drift := plan.Drifted(); len(drift) > 0 {
		names := make([]string, len(drift))
		for i, c := range drift {
			names[i] = name(c.Path)
		}
		return m.say("Not rewinding: " + strings.Join(names, ", ") + " changed since the prompt left them (by something else). " +
			"`indusr rewind " + m.prompts[idx].node + " --dry-run` shows how; --force throws those changes away.")
	}
	restored, deleted := plan.Counts()
	later := len(m.prompts) - 1 - idx
	title := fmt.Sprintf("Rewind %q: restore %s, delete %d", clipText(m.prompts[idx].text, 40), plural(restored, "file"), deleted)
	if later > 0 {
		title += fmt.Sprintf(" (and undo the %s after it)", plural(later, "prompt"))
	}
	m.pick = &confirm{title: title, body: plan.Diff(name), yes: func() tea.Cmd {
		if err := plan.Apply(store, []string{dir}); err != nil {
			return m.say("Rewind incomplete (the checkpoints are kept, so /rewind can retry): " + err.Error())
		}
		for i := idx; i < len(m.prompts); i++ {
			m.prompts[i].node = ""
		}
		return m.say(fmt.Sprintf("Rewound: restored %s and deleted %d. The conversation is unchanged: tell the agent what you undid.", plural(restored, "file"), deleted))
	}}
	m.in.Blur()
	return nil
}

func (m Model) confirmKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.pick
	switch k.String() {
	case "y", "enter":
		m.pick = nil
		m.in.Focus()
		return p.yes()
	case "n", "esc":
		m.pick = nil
		m.in.Focus()
		return m.say("Rewind cancelled; nothing changed.")
	}
	return nil
}

func (m Model) confirmView() string {
	p := m.pick
	room := max(m.height-5, 3)
	diff := strings.Split(m.colorDiff(p.body, m.width-2, true), "\n")
	if len(diff) > room {
		more := len(diff) - room + 1
		diff = append(diff[:room-1], paint(m.st.dim, fmt.Sprintf("… %s more", plural(more, "line"))))
	}
	return paint(m.st.box, wrap(p.title, m.width)) + "\n" + indent(strings.Join(diff, "\n"), "  ", "  ") +
		"\n" + paint(m.st.user, "Rewind? y / n")
}

func clipText(s string, n int) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
