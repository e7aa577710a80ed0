package tui

import (
	"strings"
	"testing"

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
