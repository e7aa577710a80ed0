package input

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// search is Ctrl-R's reverse search of the history, as in a shell: typing
// narrows to the newest prompt holding the query, Ctrl-R again goes to an
// older one, Enter or Tab puts the match in the input to edit, Esc (or
// Ctrl-G) goes back to what was typed.
type search struct {
	query string
	match int // index into the history; -1 when nothing holds the query
	draft string
}

// searchRows is how much of a matched prompt the search shows.
const searchRows = 3

func (m *Model) startSearch() {
	m.search = &search{draft: m.ta.Value(), match: -1}
	m.search.find(m.hist, m.hist.Len())
	m.menu = menu{}
}

// find moves the match to the newest entry before from holding the query;
// with none, the match stays where it was (as a shell's does) unless it
// no longer holds the query.
func (s *search) find(h *History, from int) {
	if i := h.searchBack(s.query, from); i >= 0 {
		s.match = i
		return
	}
	if s.match >= 0 && !containsFold(h.At(s.match), s.query) {
		s.match = -1
	}
}

func (m Model) searchKey(msg tea.KeyPressMsg) Model {
	s := m.search
	switch msg.String() {
	case "ctrl+r":
		if s.match > 0 {
			s.find(m.hist, s.match)
		}
	case "esc", "ctrl+g", "ctrl+c":
		m.ta.SetValue(s.draft)
		m.search = nil
	case "enter", "tab", "right", "left", "ctrl+e", "ctrl+a":
		if s.match >= 0 {
			m.ta.SetValue(m.hist.At(s.match))
			m.histPos = m.hist.Len()
		} else {
			m.ta.SetValue(s.draft)
		}
		m.search = nil
	case "backspace":
		if rs := []rune(s.query); len(rs) > 0 {
			s.query = string(rs[:len(rs)-1])
			s.match = -1
			s.find(m.hist, m.hist.Len())
		}
	default:
		if msg.Text != "" {
			s.query += msg.Text
			// A longer query keeps the current match when it still holds;
			// otherwise the newest that does.
			if s.match < 0 || !containsFold(m.hist.At(s.match), s.query) {
				s.match = -1
				s.find(m.hist, m.hist.Len())
			}
		}
	}
	return m
}

func (m Model) searchView() string {
	s := m.search
	head := "history search (ctrl+r older, enter to edit, esc to cancel): " + s.query
	lines := []string{m.Styles.Note.Render(truncate(head, m.width))}
	if s.match < 0 {
		msg := "  no prompt holds that"
		if m.hist.Len() == 0 {
			msg = "  no history in this workspace yet"
		}
		lines = append(lines, m.Styles.Note.Render(truncate(msg, m.width)))
		return strings.Join(lines, "\n")
	}
	shown := strings.Split(m.hist.At(s.match), "\n")
	more := len(shown) > searchRows
	if more {
		shown = shown[:searchRows]
	}
	for i, l := range shown {
		mark := "  "
		if i == 0 {
			mark = m.Styles.Prompt.Render("> ")
		}
		lines = append(lines, mark+truncate(l, m.width-2))
	}
	if more {
		lines = append(lines, m.Styles.Note.Render("  …"))
	}
	return strings.Join(lines, "\n")
}
