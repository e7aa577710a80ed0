// Package picker is the terminal UI's list picker, a component in the
// manner of the bubbles library: /resume picks a conversation, /rewind a
// prompt to go back to, /model a model. Typing narrows the list (every
// word typed must appear in an item's title or detail), Up and Down (or
// Ctrl-P, Ctrl-N, PgUp, PgDn, Home, End) move, Enter chooses and Esc
// cancels; the program gets a ChosenMsg or a CancelledMsg carrying the
// picker's ID. An optional Preview draws the selected item below the list,
// such as the diff a rewind would undo.
package picker

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Item is one row: Title and Detail are shown (Detail dimmed after it), Key
// is the program's handle for it (a session id, a prompt's index, a model
// id).
type Item struct {
	Title  string
	Detail string
	Key    string
}

// ChosenMsg says the user chose Item, Index being its place in the list
// New was given.
type ChosenMsg struct {
	ID    string
	Index int
	Item  Item
}

// CancelledMsg says the user left the picker with nothing chosen.
type CancelledMsg struct{ ID string }

// Styles are how the picker draws its parts.
type Styles struct {
	Title    lipgloss.Style
	Item     lipgloss.Style
	Selected lipgloss.Style
	Detail   lipgloss.Style
	Hint     lipgloss.Style
}

// DefaultStyles are the picker's own look; colour is dropped by the
// program's renderer where the terminal has none.
func DefaultStyles() Styles {
	return Styles{
		Title:    lipgloss.NewStyle().Bold(true),
		Item:     lipgloss.NewStyle(),
		Selected: lipgloss.NewStyle().Foreground(lipgloss.Color("12")).Bold(true),
		Detail:   lipgloss.NewStyle().Faint(true),
		Hint:     lipgloss.NewStyle().Faint(true),
	}
}

// Model is a picker over a fixed list of items.
type Model struct {
	ID      string
	Title   string
	Styles  Styles
	Preview func(Item) string // drawn under the list for the selected item

	items   []Item
	shown   []int // indexes into items that the filter admits
	filter  string
	sel     int // index into shown
	top     int // first row of shown on screen
	width   int
	height  int
	initial int
}

// New makes a picker; id comes back in its messages so a program with
// several pickers knows which one answered. The first item is selected.
func New(id, title string, items []Item) Model {
	m := Model{ID: id, Title: title, Styles: DefaultStyles(), items: append([]Item(nil), items...), width: 80, height: 12}
	m.refilter()
	return m
}

// SetSize fits the picker to w columns and h rows (title, rows, hint and
// preview together).
func (m *Model) SetSize(w, h int) {
	m.width, m.height = max(w, 10), max(h, 4)
	m.scroll()
}

// Select moves the selection to the item with index i in New's list (the
// current conversation in /resume, say), if the filter shows it.
func (m *Model) Select(i int) {
	for j, k := range m.shown {
		if k == i {
			m.sel = j
			m.scroll()
			return
		}
	}
}

// Selected is the item under the cursor and its index in New's list; ok is
// false when the filter hides every item.
func (m Model) Selected() (item Item, index int, ok bool) {
	if len(m.shown) == 0 {
		return Item{}, -1, false
	}
	i := m.shown[m.sel]
	return m.items[i], i, true
}

// Filter is what the user has typed to narrow the list.
func (m Model) Filter() string { return m.filter }

// Init has nothing to start.
func (m Model) Init() tea.Cmd { return nil }

// Update handles keys and pastes (a paste narrows like typing).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		m.filter += strings.ReplaceAll(msg.Content, "\n", " ")
		m.refilter()
	case tea.KeyPressMsg:
		switch msg.String() {
		case "esc", "ctrl+c", "ctrl+g":
			id := m.ID
			return m, func() tea.Msg { return CancelledMsg{ID: id} }
		case "enter":
			item, i, ok := m.Selected()
			if !ok {
				return m, nil
			}
			id := m.ID
			return m, func() tea.Msg { return ChosenMsg{ID: id, Index: i, Item: item} }
		case "up", "ctrl+p":
			m.move(-1)
		case "down", "ctrl+n", "tab":
			m.move(1)
		case "pgup":
			m.move(-m.rows())
		case "pgdown":
			m.move(m.rows())
		case "home":
			m.move(-len(m.shown))
		case "end":
			m.move(len(m.shown))
		case "backspace":
			if rs := []rune(m.filter); len(rs) > 0 {
				m.filter = string(rs[:len(rs)-1])
				m.refilter()
			}
		case "ctrl+u":
			m.filter = ""
			m.refilter()
		default:
			if msg.Text != "" {
				m.filter += msg.Text
				m.refilter()
			}
		}
	}
	return m, nil
}

func (m *Model) move(by int) {
	if len(m.shown) == 0 {
		return
	}
	m.sel = min(max(m.sel+by, 0), len(m.shown)-1)
	m.scroll()
}

// refilter keeps the items holding every word of the filter, case folded,
// and keeps the selected item selected when it still shows.
func (m *Model) refilter() {
	keep := -1
	if len(m.shown) > 0 {
		keep = m.shown[m.sel]
	}
	words := strings.Fields(strings.ToLower(m.filter))
	m.shown = m.shown[:0]
	m.sel = 0
	for i, it := range m.items {
		text := strings.ToLower(it.Title + " " + it.Detail)
		all := true
		for _, w := range words {
			if !strings.Contains(text, w) {
				all = false
				break
			}
		}
		if all {
			if i == keep {
				m.sel = len(m.shown)
			}
			m.shown = append(m.shown, i)
		}
	}
	m.scroll()
}

// rows is how many items fit: the height less the title, the hint and the
// preview's share.
func (m Model) rows() int {
	r := m.height - 2
	if m.Preview != nil {
		r = (m.height - 2) / 2
	}
	return max(r, 1)
}

func (m *Model) scroll() {
	n := m.rows()
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+n {
		m.top = m.sel - n + 1
	}
	m.top = max(min(m.top, len(m.shown)-n), 0)
}

// View draws the title (with the filter), the rows that fit, a hint line
// and the preview, each line within the width.
func (m Model) View() string {
	cut := func(s string) string { return ansi.Truncate(s, m.width, "…") }
	head := m.Title
	if m.filter != "" {
		head += "  " + m.filter
	}
	lines := []string{m.Styles.Title.Render(cut(head))}
	n := m.rows()
	if len(m.shown) == 0 {
		lines = append(lines, m.Styles.Hint.Render(cut("  nothing matches")))
	}
	for j := m.top; j < min(m.top+n, len(m.shown)); j++ {
		it := m.items[m.shown[j]]
		mark, style := "  ", m.Styles.Item
		if j == m.sel {
			mark, style = "› ", m.Styles.Selected
		}
		row := style.Render(cut(mark + it.Title))
		if it.Detail != "" {
			if room := m.width - lipgloss.Width(mark+it.Title) - 2; room > 3 {
				row += "  " + m.Styles.Detail.Render(ansi.Truncate(it.Detail, room, "…"))
			}
		}
		lines = append(lines, row)
	}
	hint := "↑↓ move · type to filter · enter choose · esc cancel"
	if len(m.shown) > n {
		hint = positionOf(m.sel+1, len(m.shown)) + " · " + hint
	}
	lines = append(lines, m.Styles.Hint.Render(cut(hint)))
	if m.Preview != nil {
		if it, _, ok := m.Selected(); ok {
			room := max(m.height-len(lines), 1)
			pv := strings.Split(strings.TrimRight(m.Preview(it), "\n"), "\n")
			if len(pv) > room {
				pv = append(pv[:room-1], "…")
			}
			for _, l := range pv {
				lines = append(lines, cut(l))
			}
		}
	}
	return strings.Join(lines, "\n")
}

func positionOf(i, n int) string { return strconv.Itoa(i) + "/" + strconv.Itoa(n) }
