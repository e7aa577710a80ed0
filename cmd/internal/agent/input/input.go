package input

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// Input bounds: the box grows with its text up to MaxRows and then
// scrolls; MaxContentRows is far beyond any typed prompt (large pastes
// collapse) but keeps one prompt from growing without end.
const (
	MaxRows        = 10
	MaxContentRows = 5000
)

// Config is what the program tells the input at its start.
type Config struct {
	// Root is the workspace: its history and the files @path offers.
	// Empty means no file completion and a history kept in memory only.
	Root string
	// Commands are the slash commands / completes, in the order shown.
	Commands []Command
	// Resources lists the MCP resources @server:uri completes; nil when
	// the session has no MCP server. Called once, when an @ is first
	// typed, off the UI's goroutine.
	Resources func(ctx context.Context) ([]Resource, error)
	// Read returns a resource's text for a prompt that names it; nil
	// leaves @server:uri as typed.
	Read func(ctx context.Context, server, uri string) (string, error)
	// NoColor draws the input without colour or faint text, for NO_COLOR
	// and dumb terminals (bold and reverse remain).
	NoColor bool
	// RealCursor leaves the cursor to the terminal: the program places it
	// where Cursor says. Otherwise the input draws its own.
	RealCursor bool
}

// SubmitMsg is a prompt the user sent. Typed is what the input showed
// (paste markers and references as written), for the conversation view;
// Prompt is what the model gets: pastes expanded and the text of each
// MCP resource it names joined after it.
type SubmitMsg struct {
	Typed  string
	Prompt string
}

// Styles are how the input draws its parts.
type Styles struct {
	Prompt   lipgloss.Style // "> " before the text
	Item     lipgloss.Style // a completion row
	Selected lipgloss.Style // the chosen completion row
	Detail   lipgloss.Style // a command's summary, a resource's title
	Note     lipgloss.Style // the search line, a failure
}

// DefaultStyles are the input's own look; colour is dropped by the
// program's renderer where the terminal has none (NO_COLOR, dumb).
func DefaultStyles() Styles {
	return Styles{
		Prompt:   lipgloss.NewStyle().Foreground(lipgloss.Color("12")).Bold(true),
		Item:     lipgloss.NewStyle(),
		Selected: lipgloss.NewStyle().Foreground(lipgloss.Color("12")).Bold(true),
		Detail:   lipgloss.NewStyle().Faint(true),
		Note:     lipgloss.NewStyle().Faint(true),
	}
}

// Model is the prompt input: a multi-line text area with the workspace's
// history, history search, collapsed pastes and completion menus. It is a
// value, like the bubbles components: Update returns the next one.
type Model struct {
	Styles Styles

	ta      textarea.Model
	cfg     Config
	hist    *History
	histPos int    // the entry shown while browsing; hist.Len() for the draft
	draft   string // what was typed before browsing began
	search  *search
	menu    menu
	pastes  pastes
	width   int
	note    string // the last failure, shown under the input until a key

	files        []string
	filesState   loadState
	res          []Resource
	resState     loadState
	resErr       error
	pendingTyped string // a prompt whose resources are being read
}

type loadState int

const (
	notLoaded loadState = iota
	loading
	loaded
)

// menu is the completion menu of the word under the cursor.
type menu struct {
	open      bool
	word      word
	items     []candidate
	sel       int
	dismissed string // the word Esc closed the menu on: stays closed for it
}

// New makes a focused input for the workspace cfg.Root. A history that
// cannot be read is shown as a note and the input starts without it.
func New(cfg Config) Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = MaxRows
	ta.MaxContentHeight = MaxContentRows
	ta.Placeholder = "Ask for a change, or /help"
	ta.KeyMap.InsertNewline.SetKeys("ctrl+j", "shift+enter", "alt+enter")
	st := ta.Styles()
	st.Focused.CursorLine = lipgloss.NewStyle()
	st.Focused.Placeholder = lipgloss.NewStyle().Faint(true)
	st.Blurred.Placeholder = lipgloss.NewStyle().Faint(true)
	// A steady cursor: a blinking one redraws the screen twice a second
	// for nothing while the user reads.
	st.Cursor.Blink = false
	ta.SetStyles(st)
	m := Model{Styles: DefaultStyles(), ta: ta, cfg: cfg}
	if cfg.NoColor {
		m.Styles = Styles{Selected: lipgloss.NewStyle().Bold(true)}
		var plain textarea.StyleState
		st.Focused, st.Blurred = plain, plain
		m.ta.SetStyles(st)
	}
	m.ta.SetVirtualCursor(!cfg.RealCursor)
	m.ta.SetPromptFunc(2, func(info textarea.PromptInfo) string {
		if info.LineNumber == 0 {
			return m.Styles.Prompt.Render("> ")
		}
		return "  "
	})
	m.ta.Focus()
	h, err := OpenHistory(cfg.Root)
	if err != nil {
		m.note = err.Error()
	}
	m.hist = h
	m.histPos = h.Len()
	m.SetWidth(80)
	return m
}

// Init has nothing to start: the cursor does not blink and the file list
// is walked when an @ first asks for it.
func (m Model) Init() tea.Cmd { return nil }

// SetWidth fits the input, its menu and its notes to w columns.
func (m *Model) SetWidth(w int) {
	if w < 10 {
		w = 10
	}
	m.width = w
	m.ta.SetWidth(w)
}

// Width is the width the input draws in.
func (m Model) Width() int { return m.width }

// SetCommands replaces the slash commands / completes (addons and MCP
// prompts come and go with the session).
func (m *Model) SetCommands(cmds []Command) { m.cfg.Commands = append([]Command(nil), cmds...) }

// Value is the text as typed, paste markers included.
func (m Model) Value() string { return m.ta.Value() }

// SetValue replaces the text, the cursor at its end.
func (m *Model) SetValue(s string) { m.ta.SetValue(s); m.menu = menu{} }

// Focus lets the input take keys; Blur stops it (a permission prompt or a
// picker has them meanwhile).
func (m *Model) Focus() tea.Cmd { return m.ta.Focus() }

// Blur stops the input taking keys.
func (m *Model) Blur() { m.ta.Blur() }

// Focused says whether the input takes keys.
func (m Model) Focused() bool { return m.ta.Focused() }

// Cursor is where the terminal's cursor goes, relative to the top left
// of View, when Config.RealCursor is set; nil when the input does not
// have the keys or shows the history search.
func (m Model) Cursor() *tea.Cursor {
	if !m.ta.Focused() || m.search != nil || m.pendingTyped != "" {
		return nil
	}
	return m.ta.Cursor()
}

// Capturing says that a key the program would otherwise take itself (Esc,
// Enter, Up, Down) belongs to the input now: a completion menu or the
// history search is open, or resources are being read for a sent prompt.
func (m Model) Capturing() bool {
	return m.menu.open || m.search != nil || m.pendingTyped != ""
}

// History is the workspace's prompt history the input records into.
func (m Model) History() *History { return m.hist }

// Update handles keys, pastes and the input's own messages.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case filesMsg:
		m.files, m.filesState = msg.files, loaded
		return m, m.refreshMenu()
	case resourcesMsg:
		m.res, m.resErr, m.resState = msg.res, msg.err, loaded
		if msg.err != nil {
			m.note = "MCP resources: " + msg.err.Error()
		}
		return m, m.refreshMenu()
	case resolvedMsg:
		return m.resolved(msg)
	case tea.PasteMsg:
		if !m.ta.Focused() || m.pendingTyped != "" {
			return m, nil
		}
		if m.search != nil {
			m.search.query += strings.ReplaceAll(msg.Content, "\n", " ")
			m.search.find(m.hist, m.hist.Len())
			return m, nil
		}
		m.ta.InsertString(m.pastes.collapse(msg.Content))
		return m, m.refreshMenu()
	case tea.KeyPressMsg:
		if !m.ta.Focused() || m.pendingTyped != "" {
			return m, nil
		}
		m.note = ""
		if m.search != nil {
			return m.searchKey(msg), nil
		}
		return m.key(msg)
	}
	var cmd tea.Cmd
	m.ta, cmd = m.ta.Update(msg)
	return m, cmd
}

func (m Model) key(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := msg.String()
	// Enter on a word already complete sends the prompt: there is nothing
	// left to choose.
	if m.menu.open && !(k == "enter" && m.menu.items[m.menu.sel].Insert == m.menu.word.text) {
		switch k {
		case "up", "ctrl+p":
			m.menu.sel = (m.menu.sel + len(m.menu.items) - 1) % len(m.menu.items)
			return m, nil
		case "down", "ctrl+n":
			m.menu.sel = (m.menu.sel + 1) % len(m.menu.items)
			return m, nil
		case "esc":
			m.menu.dismissed = m.menu.word.text
			m.menu.open = false
			return m, nil
		case "tab":
			return m.accept(false)
		case "enter":
			return m.accept(true)
		}
	}
	switch k {
	case "ctrl+r":
		m.startSearch()
		return m, nil
	case "enter":
		if m.endsWithBackslash() {
			m.ta, _ = m.ta.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
			m.ta.InsertString("\n")
			return m, nil
		}
		return m.submit()
	case "up":
		if m.ta.Line() == 0 && m.ta.LineInfo().RowOffset == 0 && m.hist.Len() > 0 && m.histPos > 0 {
			if m.histPos == m.hist.Len() {
				m.draft = m.ta.Value()
			}
			m.histPos--
			m.ta.SetValue(m.hist.At(m.histPos))
			m.menu = menu{}
			return m, nil
		}
	case "down":
		if m.histPos < m.hist.Len() && m.ta.Line() == m.ta.LineCount()-1 {
			m.histPos++
			if m.histPos == m.hist.Len() {
				m.ta.SetValue(m.draft)
			} else {
				m.ta.SetValue(m.hist.At(m.histPos))
			}
			m.menu = menu{}
			return m, nil
		}
	}
	var cmd tea.Cmd
	m.ta, cmd = m.ta.Update(msg)
	return m, tea.Batch(cmd, m.refreshMenu())
}

// endsWithBackslash: a line ended with \ and Enter continues on the next
// line, as in a shell, for terminals that send Shift-Enter as Enter.
func (m Model) endsWithBackslash() bool {
	line := strings.Split(m.ta.Value(), "\n")[m.ta.Line()]
	rs := []rune(line)
	col := m.ta.Column()
	return col > 0 && col <= len(rs) && rs[col-1] == '\\'
}

// refreshMenu opens, narrows or closes the menu for the word now under
// the cursor, starting the file walk or the resource listing the first
// time an @ needs them.
func (m *Model) refreshMenu() tea.Cmd {
	w := wordAt(m.ta.Value(), m.ta.Line(), m.ta.Column())
	k := completionKind(w)
	if k == noCompletion || w.text == m.menu.dismissed {
		m.menu.open = false
		if k == noCompletion {
			m.menu.dismissed = ""
		}
		return nil
	}
	var items []candidate
	var cmds []tea.Cmd
	switch k {
	case slashCompletion:
		items = matchCommands(m.cfg.Commands, w.text[1:])
	case atCompletion:
		if m.cfg.Resources != nil && m.resState == notLoaded {
			m.resState = loading
			cmds = append(cmds, loadResources(m.cfg.Resources))
		}
		if m.cfg.Root != "" && m.filesState == notLoaded {
			m.filesState = loading
			cmds = append(cmds, loadFiles(m.cfg.Root))
		}
		items = append(matchResources(m.res, w.text[1:]), matchFiles(m.files, w.text[1:])...)
	}
	if w != m.menu.word {
		m.menu.sel = 0
	}
	m.menu.word, m.menu.items = w, items
	m.menu.open = len(items) > 0
	if m.menu.sel >= len(items) {
		m.menu.sel = 0
	}
	return tea.Batch(cmds...)
}

// accept puts the chosen completion in place of the word. Enter on a
// slash command sends it at once, as typing it and Enter would.
func (m Model) accept(enter bool) (Model, tea.Cmd) {
	c := m.menu.items[m.menu.sel]
	w := m.menu.word
	m.menu = menu{}
	m.ta.SetCursorColumn(w.end)
	for range w.end - w.start {
		m.ta, _ = m.ta.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	if enter && strings.HasPrefix(c.Insert, "/") {
		m.ta.InsertString(c.Insert)
		return m.submit()
	}
	m.ta.InsertString(c.Insert + " ")
	return m, nil
}

// View draws the input and, under it, the open menu, the history search
// or the last failure.
func (m Model) View() string {
	var b strings.Builder
	if m.search != nil {
		b.WriteString(m.searchView())
		return b.String()
	}
	b.WriteString(m.ta.View())
	switch {
	case m.pendingTyped != "":
		b.WriteString("\n" + m.Styles.Note.Render(truncate("  reading MCP resources…", m.width)))
	case m.menu.open:
		b.WriteString("\n" + m.menuView())
	case m.menuLoading():
		b.WriteString("\n" + m.Styles.Note.Render(truncate("  listing files…", m.width)))
	}
	if m.note != "" {
		b.WriteString("\n" + m.Styles.Note.Render(truncate("  "+m.note, m.width)))
	}
	return b.String()
}

func (m Model) menuLoading() bool {
	w := wordAt(m.ta.Value(), m.ta.Line(), m.ta.Column())
	return completionKind(w) == atCompletion && w.text != m.menu.dismissed &&
		(m.filesState == loading || m.resState == loading)
}

func (m Model) menuView() string {
	items := m.menu.items
	first := 0
	if m.menu.sel >= MenuRows {
		first = m.menu.sel - MenuRows + 1
	}
	last := min(first+MenuRows, len(items))
	labelW := 0
	for _, c := range items[first:last] {
		labelW = max(labelW, lipgloss.Width(c.Label))
	}
	rows := make([]string, 0, last-first)
	for i := first; i < last; i++ {
		c := items[i]
		mark, style := "  ", m.Styles.Item
		if i == m.menu.sel {
			mark, style = "› ", m.Styles.Selected
		}
		row := mark + c.Label
		if c.Detail != "" {
			row += strings.Repeat(" ", labelW-lipgloss.Width(c.Label)+2) + c.Detail
		}
		row = truncate(row, m.width)
		if len(row) > len(mark)+len(c.Label) && c.Detail != "" {
			cut := len(mark) + len(c.Label)
			row = style.Render(row[:cut]) + m.Styles.Detail.Render(row[cut:])
		} else {
			row = style.Render(row)
		}
		rows = append(rows, row)
	}
	return strings.Join(rows, "\n")
}
