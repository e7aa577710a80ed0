package input

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/indusagi/induscode/internal/testtree"
	"github.com/indusagi/induscode/workspace"
)

func TestEnterSendsAndEmptiesTheInput(t *testing.T) {
	d := drive(t, New(Config{Root: t.TempDir()}))
	d.typ("fix the failing test\n")
	if got := d.last(); got.Typed != "fix the failing test" || got.Prompt != got.Typed {
		t.Errorf("sent %+v", got)
	}
	if d.m.Value() != "" {
		t.Errorf("input holds %q after sending", d.m.Value())
	}
	d.typ("   \n")
	if len(d.sent) != 0 {
		t.Errorf("a blank prompt was sent: %+v", d.sent)
	}
}

func TestNewlines(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys func(d *driver)
	}{
		{"ctrl+j", func(d *driver) { d.typ("one"); d.key("ctrl+j"); d.typ("two\n") }},
		{"shift+enter", func(d *driver) {
			d.typ("one")
			d.send(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift})
			d.typ("two\n")
		}},
		{"trailing backslash", func(d *driver) { d.typ("one\\\ntwo\n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := drive(t, New(Config{}))
			tc.keys(d)
			if got := d.last().Prompt; got != "one\ntwo" {
				t.Errorf("sent %q, want two lines", got)
			}
		})
	}
}

func TestMultiLineView(t *testing.T) {
	d := drive(t, New(Config{}))
	d.m.SetWidth(40)
	d.typ("first line")
	d.key("ctrl+j")
	d.typ("second line, long enough to wrap at forty columns")
	golden(t, "multiline", d.m.View())
}

func TestHistoryIsPerWorkspaceAndSurvivesARestart(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	d := drive(t, New(Config{Root: a}))
	d.typ("first\n")
	d.typ("second\n")

	// A new start in the same workspace walks back through both.
	d = drive(t, New(Config{Root: a}))
	d.typ("draft")
	d.key("up")
	if d.m.Value() != "second" {
		t.Fatalf("Up shows %q, want the newest prompt", d.m.Value())
	}
	d.key("up")
	if d.m.Value() != "first" {
		t.Fatalf("Up twice shows %q", d.m.Value())
	}
	d.key("up") // nothing older: stays
	if d.m.Value() != "first" {
		t.Fatalf("Up past the oldest shows %q", d.m.Value())
	}
	d.key("down")
	d.key("down")
	if d.m.Value() != "draft" {
		t.Fatalf("Down back past the newest shows %q, want the draft", d.m.Value())
	}

	// Another workspace has its own.
	d = drive(t, New(Config{Root: b}))
	d.key("up")
	if d.m.Value() != "" {
		t.Errorf("workspace b recalls %q from workspace a", d.m.Value())
	}
	data, err := os.ReadFile(workspace.At(a).History())
	if err != nil || string(data) != "\"first\"\n\"second\"\n" {
		t.Errorf("history file: %q, %v", data, err)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	root := t.TempDir()
	h, err := OpenHistory(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxHistoryEntries + 20 {
		if err := h.Add(fmt.Sprintf("prompt %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Add(strings.Repeat("x", MaxHistoryEntry+1)); err != nil {
		t.Fatal(err)
	}
	h.Add("prompt 519") // a repeat of the newest
	h, err = OpenHistory(root)
	if err != nil {
		t.Fatal(err)
	}
	if h.Len() != MaxHistoryEntries || h.At(0) != "prompt 20" || h.At(h.Len()-1) != fmt.Sprintf("prompt %d", MaxHistoryEntries+19) {
		t.Errorf("history holds %d, from %q to %q", h.Len(), h.At(0), h.At(h.Len()-1))
	}
}

func TestTwoTerminalsInOneWorkspaceKeepBothHistories(t *testing.T) {
	root := t.TempDir()
	one, _ := OpenHistory(root)
	two, _ := OpenHistory(root)
	one.Add("from one")
	two.Add("from two")
	h, _ := OpenHistory(root)
	if got := strings.Join(h.Entries(), ","); got != "from one,from two" {
		t.Errorf("history %q, want both terminals' prompts", got)
	}
}

// A clone can plant .indusvx/history.jsonl as a link to a file of the
// user's; recording a prompt must not write through it.
func TestHistoryRefusesAPlantedLink(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, map[string]string{".indusvx/.gitignore": "*\n"})
	if err := os.Symlink(victim, workspace.At(root).History()); err != nil {
		t.Fatal(err)
	}
	d := drive(t, New(Config{Root: root}))
	if !strings.Contains(plain(d.m.View()), "history") {
		t.Errorf("the refused history file is not named:\n%s", plain(d.m.View()))
	}
	d.typ("hello\n")
	if d.last().Prompt != "hello" {
		t.Fatal("the prompt was not sent")
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("the link's target was written: %q", data)
	}
	if !strings.Contains(plain(d.m.View()), "history") {
		t.Errorf("the failed history write is not shown:\n%s", plain(d.m.View()))
	}
}

func TestCtrlRSearchesBackwards(t *testing.T) {
	root := t.TempDir()
	h, _ := OpenHistory(root)
	for _, p := range []string{"git status", "make test", "git push origin main"} {
		h.Add(p)
	}
	d := drive(t, New(Config{Root: root}))
	d.typ("half typed")
	d.key("ctrl+r")
	if !d.m.Capturing() {
		t.Error("the search does not capture Esc and Enter")
	}
	d.typ("git")
	golden(t, "search", d.m.View())
	d.key("ctrl+r")
	d.key("enter")
	if d.m.Value() != "git status" {
		t.Fatalf("search took %q, want the older git prompt", d.m.Value())
	}
	if len(d.sent) != 0 {
		t.Fatal("Enter in the search sent the prompt; it should only fill the input")
	}

	d.key("ctrl+r")
	d.typ("nothing like it")
	if !strings.Contains(plain(d.m.View()), "no prompt holds that") {
		t.Errorf("no-match view:\n%s", plain(d.m.View()))
	}
	d.key("esc")
	if d.m.Value() != "git status" || d.m.Capturing() {
		t.Errorf("Esc left %q (capturing %v), want the text before the search", d.m.Value(), d.m.Capturing())
	}
}

func TestLargePasteCollapsesAndIsSentWhole(t *testing.T) {
	d := drive(t, New(Config{}))
	var log strings.Builder
	for i := range 40 {
		fmt.Fprintf(&log, "line %d of the log\r\n", i)
	}
	d.typ("why does this fail? ")
	d.send(tea.PasteMsg{Content: log.String()})
	d.typ(" thanks")
	golden(t, "paste", d.m.View())
	got := d.last
	d.key("enter")
	s := got()
	if s.Typed != "why does this fail? [paste #1: 41 lines] thanks" {
		t.Errorf("typed %q", s.Typed)
	}
	want := "why does this fail? " + strings.ReplaceAll(log.String(), "\r\n", "\n") + " thanks"
	if s.Prompt != want {
		t.Errorf("the model gets %q", s.Prompt)
	}

	d.send(tea.PasteMsg{Content: "short"})
	if d.m.Value() != "short" {
		t.Errorf("a short paste shows %q", d.m.Value())
	}
}

func TestAtCompletesWorkspaceFilesTheIgnoreFilesAdmit(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		".git/HEAD":        "ref: refs/heads/main\n",
		".gitignore":       "build/\n",
		"src/main.go":      "package main\n",
		"src/main_test.go": "package main\n",
		"build/main.o":     "x",
		"README.md":        "# hi\n",
	})
	d := drive(t, New(Config{Root: root}))
	d.typ("look at @mai")
	if !d.m.Capturing() {
		t.Fatal("no menu for @mai")
	}
	golden(t, "complete_path", d.m.View())
	if strings.Contains(plain(d.m.View()), "build/") {
		t.Error("an ignored file is offered")
	}
	d.key("down")
	d.key("tab")
	if d.m.Value() != "look at @src/main_test.go " {
		t.Errorf("after Tab: %q", d.m.Value())
	}
	if d.m.Capturing() {
		t.Error("the menu stays open after a completion")
	}
	d.typ("and @READ")
	d.key("enter")
	if d.m.Value() != "look at @src/main_test.go and @README.md " || len(d.sent) != 0 {
		t.Errorf("Enter on a file completes it and does not send: %q, sent %v", d.m.Value(), d.sent)
	}
}

func TestAtServerURIJoinsTheResourceText(t *testing.T) {
	res := []Resource{{Server: "docs", URI: "file:///guide.md", Name: "Style guide"}, {Server: "db", URI: "schema://users", Name: "users table"}}
	var reads []string
	cfg := Config{
		Resources: func(context.Context) ([]Resource, error) { return res, nil },
		Read: func(_ context.Context, server, uri string) (string, error) {
			reads = append(reads, server+" "+uri)
			if server == "db" {
				return "", errors.New("server db is not running")
			}
			return "Use tabs.\n", nil
		},
	}
	d := drive(t, New(cfg))
	d.typ("follow @docs")
	golden(t, "complete_resource", d.m.View())
	d.key("tab")
	d.typ("please\n")
	s := d.last()
	if s.Typed != "follow @docs:file:///guide.md please" {
		t.Errorf("typed %q", s.Typed)
	}
	want := "follow @docs:file:///guide.md please\n\n<resource ref=\"@docs:file:///guide.md\">\nUse tabs.\n</resource>"
	if s.Prompt != want {
		t.Errorf("the model gets %q, want %q", s.Prompt, want)
	}

	// A resource that cannot be read sends nothing and keeps the prompt.
	d.typ("and @db:schema://users\n")
	if len(d.sent) != 0 {
		t.Fatalf("sent %+v despite the failed read", d.sent)
	}
	if d.m.Value() != "and @db:schema://users" || !strings.Contains(plain(d.m.View()), "server db is not running") {
		t.Errorf("after the failed read: %q\n%s", d.m.Value(), plain(d.m.View()))
	}
}

func TestSlashCompletesTheProgramsCommands(t *testing.T) {
	cmds := []Command{{"help", "list the commands and keys"}, {"model", "choose the model"}, {"compact", "summarise the conversation"}, {"mcp", "MCP servers: status, restart, trust"}}
	d := drive(t, New(Config{Commands: cmds}))
	d.typ("/m")
	golden(t, "complete_slash", d.m.View())
	d.key("down")
	d.key("enter")
	if got := d.last().Prompt; got != "/mcp" {
		t.Errorf("Enter on the second command sent %q", got)
	}
	d.typ("/co")
	d.key("tab")
	if d.m.Value() != "/compact " || len(d.sent) != 0 {
		t.Errorf("Tab: %q, sent %v", d.m.Value(), d.sent)
	}
	// A slash later in the prompt is text.
	d.m.SetValue("")
	d.typ("see /m")
	if d.m.Capturing() {
		t.Error("a slash word after the first opened the command menu")
	}
	d.m.SetValue("")
	d.typ("/he")
	d.key("esc")
	if d.m.Capturing() || d.m.Value() != "/he" {
		t.Errorf("Esc: capturing %v, value %q", d.m.Capturing(), d.m.Value())
	}
	d.typ("l")
	if !d.m.Capturing() {
		t.Error("the menu stays closed for a new word")
	}
}

func TestNarrowWidthKeepsEveryLineInside(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{"a/very/long/path/to/some/deeply/nested/file/that/never/ends/main.go": ""})
	cmds := []Command{{"mcp", strings.Repeat("a summary far longer than the terminal is wide ", 3)}}
	d := drive(t, New(Config{Root: root, Commands: cmds}))
	for _, w := range []int{60, 30} {
		d.m.SetWidth(w)
		for _, typed := range []string{"/m", "@main", strings.Repeat("word ", 40)} {
			d.m.SetValue("")
			d.typ(typed)
			for i, line := range strings.Split(d.m.View(), "\n") {
				if lw := lipgloss.Width(line); lw > w {
					t.Errorf("width %d, typed %.10q: line %d is %d wide: %q", w, typed, i, lw, line)
				}
			}
		}
	}
}

func TestNoColorAndTheTerminalsCursor(t *testing.T) {
	cmds := []Command{{"help", "list the commands"}, {"hooks", "the hooks that run"}}
	d := drive(t, New(Config{Commands: cmds, NoColor: true, RealCursor: true}))
	d.typ("/h")
	view := d.m.View()
	for _, sgr := range []string{"\x1b[3", "\x1b[9", "\x1b[2m", ";3", "38;"} {
		if strings.Contains(view, sgr) {
			t.Errorf("NO_COLOR view holds a colour or faint sequence %q: %q", sgr, view)
		}
	}
	if c := d.m.Cursor(); c == nil || c.Position.X != 4 || c.Position.Y != 0 {
		t.Errorf("cursor %+v, want column 4 of row 0 (after \"> /h\")", c)
	}
	d.m.Blur()
	if d.m.Cursor() != nil {
		t.Error("a blurred input places the cursor")
	}
}
