// Package checklist authors the session checklist tools todo_read and
// todo_set. Both tools of one session share one list, kept in the session's
// [tool.Env]; todo_set replaces the list wholesale, in the shape of Claude
// Code's TodoWrite (content, status, activeForm), and allows at most one item
// in progress so the list always says what the agent is doing now.
package checklist

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
)

// Status is where an item stands.
type Status string

// The statuses an item may have.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
)

// Statuses returns every Status in display order; each call returns a new slice.
func Statuses() []Status { return []Status{Pending, InProgress, Completed} }

// MaxItems bounds the list so a runaway model cannot grow session memory
// without limit; 200 is far beyond any plan a person would read.
const MaxItems = 200

// MaxItemBytes bounds an item's content and its activeForm: an item is one
// line a person reads, and a long paragraph fits in 2,000 bytes.
const MaxItemBytes = 2000

// MaxBytes bounds the text of the whole list, so that MaxItems items of
// MaxItemBytes each cannot hold a session's memory: every session keeps its
// own list, and a server holds many sessions.
const MaxBytes = 64 << 10

// Item is one line of the checklist.
type Item struct {
	Content    string `json:"content" jsonschema:"What needs doing, in the imperative (\"Run the tests\")."`
	Status     Status `json:"status" jsonschema:"pending, in_progress or completed. At most one item may be in_progress."`
	ActiveForm string `json:"activeForm" jsonschema:"The same task in the present continuous (\"Running the tests\"), shown while it is in progress."`
}

// List is the checklist of one session.
type List struct{ Board[Item] }

// Set validates items and replaces the list with them.
func (l *List) Set(items []Item) error {
	active := -1
	return l.Replace(items, rules, func(i int, it *Item) error {
		if !slices.Contains(Statuses(), it.Status) {
			return fmt.Errorf("todos[%d].status %q is not one of pending, in_progress, completed", i, it.Status)
		}
		if it.Status == InProgress {
			if active >= 0 {
				return fmt.Errorf("todos[%d] and todos[%d] are both in_progress; only one item may be in progress at a time", active, i)
			}
			active = i
		}
		return nil
	})
}

// rules are the checklist's bounds and words; Set adds a known status
// and at most one item in progress.
var rules = Rules[Item]{
	Array: "todos",
	Texts: func(it Item) []Text {
		return []Text{
			{"content", it.Content, "say what needs doing"},
			{"activeForm", it.ActiveForm, "give the task in the present continuous (\"Running the tests\")"},
		}
	},
	Full:  "the checklist holds at most %d items, got %d; merge or drop finished ones",
	Heavy: "the checklist's text is over the limit of %d bytes at todos[%d]; shorten the items, or merge or drop finished ones",
}

// sessionKey finds the session's List in its tool.Env.
type sessionKey struct{}

// Of returns the checklist of the session env belongs to.
func Of(env *tool.Env) *List {
	return tool.Shared(env, sessionKey{}, func() *List { return new(List) })
}

// Render draws the list for the model: one line per item with a glyph for
// its status, in list order.
func Render(items []Item) string {
	return RenderItems(items, "The checklist is empty.", func(it Item) string {
		switch it.Status {
		case Completed:
			return "[x] " + it.Content
		case InProgress:
			return "[~] " + it.ActiveForm
		}
		return "[ ] " + it.Content
	})
}

func summary(items []Item) string {
	var n [3]int
	for _, it := range items {
		n[slices.Index(Statuses(), it.Status)]++
	}
	return fmt.Sprintf("%d items: %d pending, %d in progress, %d completed", len(items), n[0], n[1], n[2])
}

type readInput struct{}

// ReadTool returns todo_read, which shows the session's checklist. The
// tool keeps no state of its own (the list lives in the session's Env), so
// one value serves every deck.
func ReadTool() tool.Tool { return readTool() }

var readTool = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "todo_read",
		Label: "Read checklist",
		Description: "Show the session's checklist: every item with its status ([ ] pending, [~] in progress, [x] completed). " +
			"Read it before picking the next task or when resuming work. Takes no input. (The todo card, where present, " +
			"is a separate backlog list; this checklist is the plan of the task at hand.)",
		ReadOnly: true,
	}, func(_ context.Context, _ readInput, env *tool.Env) tool.Result {
		items := Of(env).Items()
		res := tool.Text(Render(items))
		if items == nil {
			items = []Item{}
		}
		res.Blocks = append(res.Blocks, tool.JSONBlock(map[string]any{"todos": items}))
		return res
	}))
})

type setInput struct {
	Todos []Item `json:"todos" jsonschema:"The whole checklist, in order. It replaces the current list."`
}

// SetTool returns todo_set, which replaces the session's checklist. Like
// ReadTool it is stateless and built once.
func SetTool() tool.Tool { return setTool() }

var setTool = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "todo_set",
		Label: "Update checklist",
		Description: "Replace the session's checklist with the given items. Use it to plan multi-step work and to keep " +
			"progress visible: mark an item in_progress before starting it and completed as soon as it is done. " +
			"At most one item may be in_progress. Send the whole list every time; items left out are dropped. " +
			"Use this for the steps of the current task; the todo card, where present, keeps a separate backlog.",
	}, func(_ context.Context, in setInput, env *tool.Env) tool.Result {
		list := Of(env)
		if err := list.Set(in.Todos); err != nil {
			return tool.Errorf("checklist not changed: %v", err)
		}
		return tool.Textf("Checklist updated (%s).\n%s", summary(in.Todos), Render(in.Todos))
	}, tool.WithSchema(func(s *jsonschema.Schema) {
		tool.NotNull(s, "todos")
		tool.SetEnum(tool.Property(s, "todos").Items, "status", Statuses()...)
	})))
})
