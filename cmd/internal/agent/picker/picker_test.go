package picker

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite the golden views under testdata/")

func golden(t *testing.T, name, view string) {
	t.Helper()
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("view %s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func press(m Model, keys ...string) (Model, tea.Msg) {
	var last tea.Msg
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "pgdown":
			msg = tea.KeyPressMsg{Code: tea.KeyPgDown}
		case "end":
			msg = tea.KeyPressMsg{Code: tea.KeyEnd}
		case "backspace":
			msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
		default:
			for _, r := range k {
				m, _ = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		last = nil
		if cmd != nil {
			last = cmd()
		}
	}
	return m, last
}

var sessions = []Item{
	{Title: "fix the flaky upload test", Detail: "2 hours ago · 14 messages", Key: "01J0A"},
	{Title: "add a --json flag to list", Detail: "yesterday · 6 messages", Key: "01J0B"},
	{Title: "rename Config to Options", Detail: "3 days ago · 31 messages", Key: "01J0C"},
	{Title: "why is the build slow?", Detail: "last week · 4 messages", Key: "01J0D"},
}

func TestChooseAndCancel(t *testing.T) {
	m := New("resume", "Resume a conversation", sessions)
	golden(t, "resume", m.View())
	m, msg := press(m, "down", "down", "up", "down", "enter")
	got, ok := msg.(ChosenMsg)
	if !ok || got.ID != "resume" || got.Index != 2 || got.Item.Key != "01J0C" {
		t.Fatalf("Enter gave %#v", msg)
	}
	_, msg = press(m, "esc")
	if c, ok := msg.(CancelledMsg); !ok || c.ID != "resume" {
		t.Fatalf("Esc gave %#v", msg)
	}
}

func TestTypingFilters(t *testing.T) {
	m := New("resume", "Resume a conversation", sessions)
	m, _ = press(m, "down", "down") // "rename Config…" selected
	m, _ = press(m, "config")
	if it, i, _ := m.Selected(); i != 2 || it.Key != "01J0C" {
		t.Errorf("after filtering the selection is %d %q", i, it.Title)
	}
	m, _ = press(m, "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "days 31")
	golden(t, "resume_filtered", m.View())
	m, msg := press(m, "enter")
	if got, _ := msg.(ChosenMsg); got.Index != 2 {
		t.Errorf("chose %#v", msg)
	}
	m, _ = press(m, "zzz")
	if !strings.Contains(ansi.Strip(m.View()), "nothing matches") {
		t.Errorf("view with no match:\n%s", ansi.Strip(m.View()))
	}
	if _, msg = press(m, "enter"); msg != nil {
		t.Errorf("Enter with nothing shown gave %#v", msg)
	}
}

func TestALongListScrollsAndFits(t *testing.T) {
	var items []Item
	for i := range 40 {
		items = append(items, Item{Title: fmt.Sprintf("prompt %02d: %s", i, strings.Repeat("make it so ", 8)), Detail: "3 files changed", Key: fmt.Sprint(i)})
	}
	m := New("rewind", "Rewind to before", items)
	m.Preview = func(it Item) string {
		return "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-old " + it.Key + "\n+new " + it.Key + "\n"
	}
	m.SetSize(60, 14)
	m, _ = press(m, "pgdown", "down")
	golden(t, "rewind_scrolled", m.View())
	for _, w := range []int{60, 30} {
		m.SetSize(w, 14)
		view := m.View()
		if h := lipgloss.Height(view); h > 14 {
			t.Errorf("width %d: %d rows, want at most 14", w, h)
		}
		for i, l := range strings.Split(view, "\n") {
			if lw := lipgloss.Width(l); lw > w {
				t.Errorf("width %d: line %d is %d wide: %q", w, i, lw, ansi.Strip(l))
			}
		}
	}
	m, _ = press(m, "end")
	if _, i, _ := m.Selected(); i != 39 {
		t.Errorf("End selects %d", i)
	}
	if !strings.Contains(ansi.Strip(m.View()), "+new 39") {
		t.Errorf("the preview does not follow the selection:\n%s", ansi.Strip(m.View()))
	}
}
