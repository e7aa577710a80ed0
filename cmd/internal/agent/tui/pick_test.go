package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/transcript"
)

// /model alone opens a picker of the provider's models; typing narrows
// it and Enter switches.
func TestModelPicker(t *testing.T) {
	x := newTM(t, 80, 24)
	x.ev(started())
	x.submit("/model")
	s := x.screen()
	if !strings.Contains(s, "Model for the next calls") || !strings.Contains(s, "anthropic/claude-sonnet-4-5") || !strings.Contains(s, "in use") {
		t.Fatalf("no model picker:\n%s", s)
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "openai/") {
			t.Errorf("another provider's model is offered: %q", line)
		}
	}
	for _, r := range "opus" {
		x.key(string(r))
	}
	x.key("enter")
	if !strings.Contains(x.f.model, "opus") {
		t.Errorf("the model is %q after choosing an opus", x.f.model)
	}
	if x.m.list != nil || !x.m.in.m.Focused() {
		t.Error("the picker stays open, or the input did not get the keys back")
	}
}

// /resume alone lists the workspace's conversations, this one marked;
// Esc leaves it with nothing changed.
func TestResumePicker(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	x := newTM(t, 80, 24)
	x.ev(started())
	x.submit("/resume")
	if !strings.Contains(x.screen(), "No conversation of this workspace to resume yet.") {
		t.Errorf("with none:\n%s", x.screen())
	}
	for _, first := range []string{"fix the flaky upload test", "add a --json flag"} {
		tr, err := transcript.New(x.f.dir, "anthropic/claude-sonnet-4-5")
		if err != nil {
			t.Fatal(err)
		}
		msg := provider.Message{Role: provider.User, Blocks: []provider.Block{{Kind: provider.TextBlock, Text: first}}}
		if err := tr.Append(transcript.Line{Kind: transcript.Header, Time: start, Model: "anthropic/claude-sonnet-4-5", Dir: x.f.dir},
			transcript.Line{Kind: transcript.MessageLine, Time: start, Message: &msg}); err != nil {
			t.Fatal(err)
		}
		tr.Close()
	}
	x.submit("/resume")
	s := x.screen()
	if !strings.Contains(s, "Resume a conversation") || !strings.Contains(s, "fix the flaky upload test") || !strings.Contains(s, "add a --json flag") {
		t.Fatalf("the picker:\n%s", s)
	}
	x.key("esc")
	if x.m.list != nil || x.m.reopen != nil {
		t.Error("Esc did not close the picker, or chose a conversation")
	}
	x.submit("/resume")
	x.key("down")
	x.key("enter")
	if x.m.reopen == nil || !transcript.ValidID(x.m.reopen.resume) {
		t.Errorf("Enter did not reopen a conversation: %+v", x.m.reopen)
	}
}

// /rewind alone with two prompts that changed files asks which; the
// choice goes on as /rewind N.
func TestRewindPickerChoosesThePrompt(t *testing.T) {
	x := newTM(t, 80, 24)
	x.ev(started())
	x.m.prompts = []sent{{text: "first change", node: "n1"}, {text: "a prompt that changed nothing"}, {text: "second change", node: "n2"}}
	x.submit("/rewind")
	s := x.screen()
	if !strings.Contains(s, "Rewind the files to before") || !strings.Contains(s, "› second change") || !strings.Contains(s, "first change") || strings.Contains(s, "changed nothing") {
		t.Fatalf("the picker:\n%s", s)
	}
	x.key("down")
	x.key("enter")
	// The fake keeps no checkpoints, so /rewind 2 finds nothing to undo
	// and says so: the choice reached it.
	if !strings.Contains(x.screen(), "No prompt of this terminal changed files to undo") {
		t.Errorf("after choosing:\n%s", x.screen())
	}
	x.m.prompts = x.m.prompts[:1]
	x.submit("/rewind") // one prompt: no list, straight on
	if x.m.list != nil {
		t.Error("a picker for one prompt")
	}
	var _ = conductor.Default
}
