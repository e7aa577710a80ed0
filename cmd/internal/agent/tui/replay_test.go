package tui

import (
	"strings"
	"testing"

	mcpbridge "github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/provider"
)

// A resumed conversation shows its earlier prompts, answers and calls.
func TestResumedConversationIsShown(t *testing.T) {
	f := &fake{dir: t.TempDir(), history: []provider.Message{
		{Role: provider.User, Blocks: []provider.Block{{Kind: provider.TextBlock, Text: "what is in greet.txt?"}}},
		{Role: provider.Assistant, Blocks: []provider.Block{use("r1", "read", `{"path":"greet.txt"}`)}},
		{Role: provider.User, Blocks: []provider.Block{result("r1", "1\thello world", false)}},
		{Role: provider.Assistant, Blocks: []provider.Block{{Kind: provider.TextBlock, Text: "It says hello world."}}},
	}}
	x := newTMOf(t, f, 80, 24)
	x.golden("resumed")
	s := x.screen()
	for _, want := range []string{"> what is in greet.txt?", "● read greet.txt  done", "It says hello world.", "Resumed: 4 messages"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
}

// An MCP server's prompt is a slash command: /server:name args fills its
// arguments in order (the last takes the rest) and sends its text.
func TestMCPPromptCommand(t *testing.T) {
	f := &fake{dir: t.TempDir(), mcp: []mcpbridge.Prompt{{Server: "rev", Name: "review", Description: "review a file", Arguments: []string{"file", "focus"}}}}
	x := newTMOf(t, f, 80, 40)
	x.send(x.m.listPrompts()())
	x.submit("/help")
	if !strings.Contains(x.screen(), "/rev:review file focus — review a file (MCP prompt)") {
		t.Errorf("/help lacks the prompt:\n%s", x.screen())
	}
	cmd := x.submit("/rev:review a.go error handling")
	if cmd == nil {
		t.Fatal("the prompt command did nothing")
	}
	run := x.send(cmd())
	if run == nil {
		t.Fatal("the prompt's text was not run")
	}
	run()
	if len(f.prompts) != 1 || f.prompts[0] != "Review a.go for error handling." || f.gotArgs["file"] != "a.go" {
		t.Errorf("sent %v with arguments %v", f.prompts, f.gotArgs)
	}
}

func (f *fake) MCPStatus() []mcpbridge.ServerStatus {
	return []mcpbridge.ServerStatus{{Name: "rev", State: mcpbridge.Ready, Tools: 2}, {Name: "docs", State: mcpbridge.Failed, LastError: "exited with status 1\nsecond line"}}
}

// /mcp shows each server's state.
func TestMCPStatus(t *testing.T) {
	x := newTM(t, 100, 30)
	x.submit("/mcp")
	s := x.screen()
	for _, want := range []string{"rev: ready, 2 tools", "docs: failed, 0 tools; last error: exited with status 1 …"} {
		if !strings.Contains(s, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, s)
		}
	}
}
