package tui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/indusagi/induscode/addons"
	mcpbridge "github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/provider"
)

var update = flag.Bool("update", false, "rewrite the golden views in testdata/")

// fake is a Backend whose Run plays a script of events through the
// model's own messages (the test feeds them); it records the controls.
type fake struct {
	mu       sync.Mutex
	dir      string
	mode     conductor.PermissionMode
	model    string
	rules    []string
	prompts  []string
	sent     []string
	compacts int
	commands []addons.Command
	ran      []string
	store    checkpoint.Store
	history  []provider.Message
	mcp      []mcpbridge.Prompt
	gotArgs  map[string]string
	run      func(ctx context.Context, prompt string) (*conductor.Result, error)
}

func (f *fake) Run(ctx context.Context, prompt string) (*conductor.Result, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	run := f.run
	f.mu.Unlock()
	if run != nil {
		return run(ctx, prompt)
	}
	return &conductor.Result{Subtype: conductor.Success}, nil
}
func (f *fake) Compact(context.Context) error { f.compacts++; return nil }
func (f *fake) SendMessage(_ context.Context, t string) error {
	f.sent = append(f.sent, t)
	return nil
}
func (f *fake) SetModel(_ context.Context, id string) error { f.model = id; return nil }
func (f *fake) SetThinking(context.Context, string) error   { return nil }
func (f *fake) SetMode(m conductor.PermissionMode) error {
	if _, err := conductor.ParsePermissionMode(string(m)); err != nil {
		return err
	}
	f.mode = m
	return nil
}
func (f *fake) Mode() conductor.PermissionMode {
	if f.mode == "" {
		return conductor.Default
	}
	return f.mode
}
func (f *fake) AllowRule(r string) error {
	if _, err := conductor.ParseRules([]string{r}); err != nil {
		return err
	}
	f.rules = append(f.rules, r)
	return nil
}
func (f *fake) AllowedRules() []string { return f.rules }
func (f *fake) Model() provider.ModelID {
	id, _ := provider.ParseModelID(cmpOr(f.model, "anthropic/claude-sonnet-4-5"))
	return id
}
func (f *fake) ContextWindow() int64                                { return 200_000 }
func (f *fake) Messages() []provider.Message                        { return f.history }
func (f *fake) Prompts(context.Context) ([]mcpbridge.Prompt, error) { return f.mcp, nil }
func (f *fake) GetPrompt(_ context.Context, server, name string, args map[string]string) (string, error) {
	f.gotArgs = args
	return "Review " + args["file"] + " for " + args["focus"] + ".", nil
}
func (f *fake) SessionID() string { return "01JTESTSESSION0000000042" }
func (f *fake) Tools() []provider.ToolDef {
	return []provider.ToolDef{{Name: "read"}, {Name: "edit"}, {Name: "bash"}, {Name: "everything__echo"}}
}
func (f *fake) Dir() string                   { return f.dir }
func (f *fake) Commands() []addons.Command    { return f.commands }
func (f *fake) Checkpoints() checkpoint.Store { return f.store }
func (f *fake) RunCommand(_ context.Context, name string, args []string) (addons.ExecOutcome, error) {
	f.ran = append(f.ran, name+" "+strings.Join(args, " "))
	return addons.ExecOutcome{Stdout: "ran " + name + "\n"}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// start is the clock of every test: durations on screen are fixed.
var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// tm is a model under test and its clock.
type tm struct {
	t   *testing.T
	m   Model
	now time.Time
	f   *fake
}

func newTM(t *testing.T, w, h int, env ...string) *tm {
	t.Helper()
	return newTMOf(t, &fake{dir: t.TempDir()}, w, h, env...)
}

func newTMOf(t *testing.T, f *fake, w, h int, env ...string) *tm {
	t.Helper()
	x := &tm{t: t, now: start, f: f}
	if env == nil {
		env = []string{"TERM=xterm-256color"}
	}
	x.m = New(f, Config{Env: env, Now: func() time.Time { return x.now }, Width: w, Height: h})
	x.send(tea.WindowSizeMsg{Width: w, Height: h})
	return x
}

// send updates the model with msg and runs what it returns that is not
// a run of the backend (those the test plays itself) or the quit.
func (x *tm) send(msg tea.Msg) tea.Cmd {
	x.t.Helper()
	_, cmd := x.m.Update(msg)
	return cmd
}

// ev feeds conductor events.
func (x *tm) ev(es ...conductor.Event) {
	for _, e := range es {
		x.send(eventMsg{e: e})
	}
}

// key presses keys by name ("enter", "shift+tab", "a").
func (x *tm) key(names ...string) tea.Cmd {
	var last tea.Cmd
	for _, n := range names {
		last = x.send(keyOf(n))
	}
	return last
}

// typeText types text, then Enter, and delivers the submit.
func (x *tm) submit(text string) tea.Cmd {
	x.t.Helper()
	for _, r := range text {
		x.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	cmd := x.send(keyOf("enter"))
	if cmd == nil {
		x.t.Fatalf("enter after %q sent nothing", text)
	}
	msg := cmd()
	sm, ok := msg.(submitMsg)
	if !ok {
		x.t.Fatalf("enter gave %T, not a submit", msg)
	}
	return x.send(sm)
}

func keyOf(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	r := []rune(name)
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// screen is the view as plain text.
func (x *tm) screen() string { return ansi.Strip(x.m.View().Content) }

// golden compares the screen with testdata/NAME.golden (rewritten with
// -update) and checks that no line is wider than the terminal.
func (x *tm) golden(name string) {
	x.t.Helper()
	got := x.screen()
	for i, l := range strings.Split(got, "\n") {
		if w := ansi.StringWidth(l); w > x.m.width {
			x.t.Errorf("line %d is %d columns wide in a %d-column terminal: %q", i+1, w, x.m.width, l)
		}
	}
	if n := strings.Count(got, "\n") + 1; n != x.m.height {
		x.t.Errorf("the screen has %d lines, the terminal %d", n, x.m.height)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			x.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		x.t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		x.t.Errorf("the screen differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
