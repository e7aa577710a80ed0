package cards

import (
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/checklist"
)

func TestTodoSetAndRead(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	card := Todo()
	if r := run(t, card, env, map[string]any{"action": "read"}); r.IsError || text(r) != "The todo list is empty." {
		t.Fatalf("fresh read: %s", r.PlainText())
	}
	items := []map[string]any{
		{"content": "write tests", "state": "done"},
		{"content": "fix the parser", "state": "active", "weight": "high"},
		{"content": "update docs", "state": "pending", "weight": "low"},
		{"content": "rewrite in Rust", "state": "dropped", "weight": "normal"},
	}
	if r := run(t, card, env, map[string]any{"action": "set", "items": items}); r.IsError || !strings.HasPrefix(text(r), "Todo list replaced (4 items).") {
		t.Fatalf("set: %s", r.PlainText())
	}
	want := "[x] write tests\n[~] fix the parser (high)\n[ ] update docs (low)\n[-] rewrite in Rust"
	r := run(t, card, env, map[string]any{"action": "read"})
	if text(r) != want {
		t.Errorf("read:\n%s\nwant:\n%s", text(r), want)
	}
	if !strings.Contains(string(r.Blocks[1].JSON), `"weight":"normal"`) {
		t.Errorf("JSON block: %s", r.Blocks[1].JSON)
	}
	// set replaces the whole list.
	run(t, card, env, map[string]any{"action": "set", "items": []map[string]any{{"content": "only", "state": "pending"}}})
	if got := text(run(t, card, env, map[string]any{"action": "read"})); got != "[ ] only" {
		t.Errorf("after a second set: %q", got)
	}
	// The checklist of todo_read/todo_set is another list.
	if got := checklist.Of(env).Items(); len(got) != 0 {
		t.Errorf("todo wrote into the checklist: %v", got)
	}
	if got := text(run(t, card, tool.NewEnv(t.TempDir()), map[string]any{"action": "read"})); got != "The todo list is empty." {
		t.Errorf("another session sees the list: %q", got)
	}
}

func TestTodoRejects(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	card := Todo()
	run(t, card, env, map[string]any{"action": "set", "items": []map[string]any{{"content": "keep", "state": "pending"}}})
	many := make([]map[string]any, checklist.MaxItems+1)
	for i := range many {
		many[i] = map[string]any{"content": "x", "state": "pending"}
	}
	long := []map[string]any{{"content": strings.Repeat("x", checklist.MaxItemBytes+1), "state": "pending"}}
	// 200 items each under the item bound, together over the list's bound.
	heavy := make([]map[string]any, checklist.MaxItems)
	for i := range heavy {
		heavy[i] = map[string]any{"content": strings.Repeat("y", checklist.MaxItemBytes), "state": "pending"}
	}
	for _, tc := range []struct {
		name string
		in   map[string]any
		want string
	}{
		{"item too long", map[string]any{"action": "set", "items": long}, "items[0].content is 2001 bytes, over the limit of 2000"},
		{"list too large", map[string]any{"action": "set", "items": heavy}, "over the limit of 65536 bytes at items[32]"},
		{"unknown action", map[string]any{"action": "write"}, "field action"},
		{"no action", map[string]any{}, "action"},
		{"set without items", map[string]any{"action": "set"}, "needs items"},
		{"bad state", map[string]any{"action": "set", "items": []map[string]any{{"content": "a", "state": "in_progress"}}}, "state"},
		{"bad weight", map[string]any{"action": "set", "items": []map[string]any{{"content": "a", "state": "done", "weight": "urgent"}}}, "weight"},
		{"empty content", map[string]any{"action": "set", "items": []map[string]any{{"content": " ", "state": "done"}}}, "items[0].content is empty"},
		{"missing content", map[string]any{"action": "set", "items": []map[string]any{{"state": "done"}}}, "content"},
		{"too many", map[string]any{"action": "set", "items": many}, "at most 200 items"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, card, env, tc.in)
			if !r.IsError || !strings.Contains(text(r), tc.want) {
				t.Errorf("got %v: %s\nwant an error with %q", r.IsError, text(r), tc.want)
			}
		})
	}
	if got := text(run(t, card, env, map[string]any{"action": "read"})); got != "[ ] keep" {
		t.Errorf("a refused set changed the list: %q", got)
	}
}
