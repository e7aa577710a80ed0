package checklist_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/checklist"
)

func call(t *testing.T, tl tool.Tool, env *tool.Env, input string) tool.Result {
	t.Helper()
	return tl.Run(context.Background(), json.RawMessage(input), env)
}

func TestSetThenRead(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	set, read := checklist.SetTool(), checklist.ReadTool()
	if got := call(t, read, env, `{}`).PlainText(); !strings.HasPrefix(got, "The checklist is empty.") {
		t.Errorf("fresh list: %q", got)
	}
	res := call(t, set, env, `{"todos":[
		{"content":"Write the parser","status":"completed","activeForm":"Writing the parser"},
		{"content":"Run the tests","status":"in_progress","activeForm":"Running the tests"},
		{"content":"Update docs","status":"pending","activeForm":"Updating docs"}]}`)
	if res.IsError {
		t.Fatal(res.PlainText())
	}
	if !strings.Contains(res.PlainText(), "3 items: 1 pending, 1 in progress, 1 completed") {
		t.Errorf("set summary: %q", res.PlainText())
	}
	got := call(t, read, env, `{}`)
	want := "[x] Write the parser\n[~] Running the tests\n[ ] Update docs"
	if got.Blocks[0].Text != want {
		t.Errorf("read text = %q, want %q", got.Blocks[0].Text, want)
	}
	var doc struct{ Todos []checklist.Item }
	if err := json.Unmarshal(got.Blocks[1].JSON, &doc); err != nil || len(doc.Todos) != 3 || doc.Todos[1].Status != checklist.InProgress {
		t.Errorf("read JSON = %s (%v)", got.Blocks[1].JSON, err)
	}
	// set replaces wholesale.
	call(t, set, env, `{"todos":[{"content":"Only","status":"pending","activeForm":"Doing only"}]}`)
	if got := call(t, read, env, `{}`).Blocks[0].Text; got != "[ ] Only" {
		t.Errorf("after replace: %q", got)
	}
	call(t, set, env, `{"todos":[]}`)
	if got := call(t, read, env, `{}`).Blocks[0].Text; got != "The checklist is empty." {
		t.Errorf("after clearing: %q", got)
	}
}

func TestSetRejects(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, input, want string }{
		{"two in progress", `{"todos":[{"content":"a","status":"in_progress","activeForm":"A"},{"content":"b","status":"in_progress","activeForm":"B"}]}`,
			"todos[0] and todos[1] are both in_progress; only one item may be in progress"},
		{"bad status", `{"todos":[{"content":"a","status":"done","activeForm":"A"}]}`, "field todos[0].status: enum"},
		{"empty content", `{"todos":[{"content":"  ","status":"pending","activeForm":"A"}]}`, "todos[0].content is empty"},
		{"missing activeForm", `{"todos":[{"content":"a","status":"pending"}]}`, `missing properties: ["activeForm"]`},
		{"empty activeForm", `{"todos":[{"content":"a","status":"pending","activeForm":""}]}`, "todos[0].activeForm is empty"},
		{"missing todos", `{}`, `missing properties: ["todos"]`},
		{"null todos", `{"todos":null}`, "field todos: type"},
		{"content too long", `{"todos":[{"content":"` + strings.Repeat("x", checklist.MaxItemBytes+1) + `","status":"pending","activeForm":"A"}]}`,
			"todos[0].content is 2001 bytes, over the limit of 2000"},
		{"activeForm too long", `{"todos":[{"content":"a","status":"pending","activeForm":"` + strings.Repeat("x", checklist.MaxItemBytes+1) + `"}]}`,
			"todos[0].activeForm is 2001 bytes"},
		{"list too large", `{"todos":[` + strings.Repeat(`{"content":"`+strings.Repeat("y", checklist.MaxItemBytes)+`","status":"pending","activeForm":"A"},`, checklist.MaxItems-1) +
			`{"content":"a","status":"pending","activeForm":"A"}]}`, "the checklist's text is over the limit of 65536 bytes at todos[32]"},
		{"too many", `{"todos":[` + strings.Repeat(`{"content":"a","status":"pending","activeForm":"A"},`, checklist.MaxItems) + `{"content":"a","status":"pending","activeForm":"A"}]}`, "at most 200 items"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := tool.NewEnv(t.TempDir())
			call(t, checklist.SetTool(), env, `{"todos":[{"content":"keep me","status":"pending","activeForm":"Keeping"}]}`)
			res := call(t, checklist.SetTool(), env, tc.input)
			if !res.IsError || !strings.Contains(res.PlainText(), tc.want) {
				t.Errorf("got %v %q, want an error containing %q", res.IsError, res.PlainText(), tc.want)
			}
			if got := checklist.Of(env).Items(); len(got) != 1 || got[0].Content != "keep me" {
				t.Errorf("a rejected set changed the list: %+v", got)
			}
		})
	}
}

func TestReadToolSchemaTakesNoInput(t *testing.T) {
	t.Parallel()
	res := checklist.ReadTool().Run(context.Background(), json.RawMessage(`{"x":1}`), tool.NewEnv(t.TempDir()))
	if !res.IsError || !strings.Contains(res.PlainText(), "unexpected additional properties") {
		t.Errorf("todo_read accepted input: %q", res.PlainText())
	}
}
