package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// command is a slash command offered to the input.
type command struct{ Name, Summary string }

// inputBox is the prompt input: a bubbles text area where Enter sends
// and Ctrl-J (or Shift-Enter, Alt-Enter) adds a line.
type inputBox struct {
	ta   textarea.Model
	cmds []command
}

// inputRows bounds the input's height; it scrolls past it.
const inputRows = 6

func newInputBox(cmds []command, color bool) inputBox {
	ta := textarea.New()
	ta.Prompt = "> "
	ta.Placeholder = "Ask for a change, or /help"
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = inputRows
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("ctrl+j", "shift+enter", "alt+enter"))
	s := ta.Styles()
	s.Focused.CursorLine = s.Focused.Text
	if !color {
		var plain textarea.StyleState
		s.Focused, s.Blurred = plain, plain
		s.Cursor.Blink = false
	}
	ta.SetStyles(s)
	ta.SetVirtualCursor(false) // the terminal's own cursor (see Model.View)
	return inputBox{ta: ta, cmds: cmds}
}

func (b *inputBox) SetWidth(w int)          { b.ta.SetWidth(w) }
func (b *inputBox) Focus() tea.Cmd          { return b.ta.Focus() }
func (b *inputBox) Blur()                   { b.ta.Blur() }
func (b *inputBox) Value() string           { return b.ta.Value() }
func (b *inputBox) SetValue(s string)       { b.ta.SetValue(s) }
func (b *inputBox) Capturing() bool         { return false }
func (b *inputBox) SetCommands(c []command) { b.cmds = c }
func (b inputBox) View() string             { return b.ta.View() }

// Cursor is where the terminal's cursor goes, relative to the input's
// top left; nil when the input does not have the keys.
func (b inputBox) Cursor() *tea.Cursor {
	if !b.ta.Focused() {
		return nil
	}
	return b.ta.Cursor()
}

func (b inputBox) Update(msg tea.Msg) (inputBox, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "enter" && b.ta.Focused() {
		text := b.ta.Value()
		if strings.HasSuffix(text, "\\") { // a trailing backslash continues the line
			b.ta.SetValue(strings.TrimSuffix(text, "\\") + "\n")
			return b, nil
		}
		if strings.TrimSpace(text) == "" {
			return b, nil
		}
		b.ta.Reset()
		return b, func() tea.Msg { return submitMsg{typed: text, prompt: text} }
	}
	var cmd tea.Cmd
	b.ta, cmd = b.ta.Update(msg)
	return b, cmd
}
