package input

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite the golden views under testdata/")

// golden compares a view, without its colours and trailing blanks, with
// testdata/NAME.golden.
func golden(t *testing.T, name, view string) {
	t.Helper()
	got := plain(view)
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
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

// plain is the screen text of a view.
func plain(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// driver feeds a model keys and runs the commands it returns, feeding
// their messages back, and keeps what it would hand the program.
type driver struct {
	t    *testing.T
	m    Model
	sent []SubmitMsg
}

func drive(t *testing.T, m Model) *driver { return &driver{t: t, m: m} }

func (d *driver) send(msg tea.Msg) {
	d.t.Helper()
	var cmd tea.Cmd
	d.m, cmd = d.m.Update(msg)
	d.run(cmd)
}

func (d *driver) run(cmd tea.Cmd) {
	d.t.Helper()
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(30 * time.Second):
		d.t.Fatal("a command of the input did not return")
	}
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	case SubmitMsg:
		d.sent = append(d.sent, msg)
	default:
		d.send(msg)
	}
}

// typ types text key by key; "\n" is Enter.
func (d *driver) typ(text string) {
	d.t.Helper()
	for _, r := range text {
		if r == '\n' {
			d.key("enter")
			continue
		}
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// key presses a named key: enter, esc, tab, up, down, backspace, ctrl+X.
func (d *driver) key(name string) {
	d.t.Helper()
	var k tea.KeyPressMsg
	switch name {
	case "enter":
		k = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		k = tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		k = tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		k = tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		k = tea.KeyPressMsg{Code: tea.KeyDown}
	case "backspace":
		k = tea.KeyPressMsg{Code: tea.KeyBackspace}
	default:
		c, ok := strings.CutPrefix(name, "ctrl+")
		if !ok || len(c) != 1 {
			d.t.Fatalf("no key %q", name)
		}
		k = tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	if k.String() != name {
		d.t.Fatalf("key %q reads as %q", name, k.String())
	}
	d.send(k)
}

// last is the one prompt sent since the previous call.
func (d *driver) last() SubmitMsg {
	d.t.Helper()
	if len(d.sent) != 1 {
		d.t.Fatalf("sent %d prompts, want 1: %+v", len(d.sent), d.sent)
	}
	s := d.sent[0]
	d.sent = nil
	return s
}
