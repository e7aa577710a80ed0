package cards

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/checklist"
)

// TodoState is where a todo item stands.
type TodoState string

// The todo states, in display order.
const (
	TodoPending TodoState = "pending"
	TodoActive  TodoState = "active"
	TodoDone    TodoState = "done"
	TodoDropped TodoState = "dropped"
)

// TodoStates returns every TodoState; each call returns a new slice.
func TodoStates() []TodoState { return []TodoState{TodoPending, TodoActive, TodoDone, TodoDropped} }

// glyph is the box a state renders as.
func (s TodoState) glyph() string {
	switch s {
	case TodoPending:
		return "[ ]"
	case TodoActive:
		return "[~]"
	case TodoDone:
		return "[x]"
	case TodoDropped:
		return "[-]"
	}
	return "[?]"
}

// TodoWeight is how much an item matters.
type TodoWeight string

// The weights; normal is the default.
const (
	WeightLow    TodoWeight = "low"
	WeightNormal TodoWeight = "normal"
	WeightHigh   TodoWeight = "high"
)

// TodoWeights returns every TodoWeight; each call returns a new slice.
func TodoWeights() []TodoWeight { return []TodoWeight{WeightLow, WeightNormal, WeightHigh} }

// TodoItem is one entry of the todo card's list.
type TodoItem struct {
	Content string     `json:"content" jsonschema:"What the item is about."`
	State   TodoState  `json:"state" jsonschema:"pending, active, done or dropped."`
	Weight  TodoWeight `json:"weight,omitempty" jsonschema:"low, normal (default) or high."`
}

// TodoLedger is the list of one session. It is not the checklist of
// todo_read and todo_set: the two never see each other's items, though
// they keep the same bounds through one implementation.
type TodoLedger struct{ checklist.Board[TodoItem] }

// todoRules are the card's bounds and words.
var todoRules = checklist.Rules[TodoItem]{
	Array: "items",
	Texts: func(it TodoItem) []checklist.Text {
		return []checklist.Text{{Name: "content", Value: it.Content, Hint: "say what the item is"}}
	},
	Full:  "todo holds at most %d items, got %d; merge items or drop finished ones",
	Heavy: "its text is over the limit of %d bytes at items[%d]; shorten the items, or merge or drop finished ones",
}

type todoKey struct{}

// LedgerOf returns the todo list of the session env belongs to.
func LedgerOf(env *tool.Env) *TodoLedger {
	return tool.Shared(env, todoKey{}, func() *TodoLedger { return new(TodoLedger) })
}

type todoInput struct {
	Action string     `json:"action" jsonschema:"read or set."`
	Items  []TodoItem `json:"items,omitempty" jsonschema:"set: the whole list, in order; it replaces the current one. Send [] to clear it."`
}

// Todo returns the todo card.
func Todo() tool.Tool { return todoOnce() }

var todoOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "todo",
		Label: "Todo list",
		Description: "A weighted todo list for this session, separate from the checklist of todo_read/todo_set. Use todo_set " +
			"for the step-by-step plan of the task at hand (what you are doing now); use todo for a backlog you want to " +
			"keep track of: follow-ups, ideas, things you decided to drop. action=read shows it ([ ] pending, [~] active, " +
			"[x] done, [-] dropped); action=set with items replaces the whole list. Each item has content, a state and an " +
			"optional weight (low, normal, high).",
	}, runTodo, tool.WithSchema(func(s *jsonschema.Schema) {
		tool.SetEnum(s, "action", "read", "set")
		tool.NotNull(s, "items")
		item := tool.Property(s, "items").Items
		tool.SetEnum(item, "state", TodoStates()...)
		tool.SetEnum(item, "weight", TodoWeights()...)
	})))
})

func runTodo(_ context.Context, in todoInput, env *tool.Env) tool.Result {
	ledger := LedgerOf(env)
	switch in.Action {
	case "read":
		items := ledger.Items()
		return todoResult(RenderTodos(items), items)
	case "set":
		if in.Items == nil {
			return tool.Errorf("todo action=set needs items: the whole list (send [] to clear it)")
		}
		err := ledger.Replace(in.Items, todoRules, func(_ int, it *TodoItem) error {
			if it.Weight == "" {
				it.Weight = WeightNormal
			}
			return nil
		})
		if err != nil {
			return tool.Errorf("todo list not changed: %v", err)
		}
		return todoResult(fmt.Sprintf("Todo list replaced (%d items).\n%s", len(in.Items), RenderTodos(in.Items)), in.Items)
	}
	return tool.Errorf("todo: unknown action %q; use read or set", in.Action)
}

func todoResult(text string, items []TodoItem) tool.Result {
	if items == nil {
		items = []TodoItem{}
	}
	res := tool.Text(text)
	res.Blocks = append(res.Blocks, tool.JSONBlock(map[string]any{"items": items}))
	return res
}

// RenderTodos draws the list one line per item: the state's glyph, the
// content, and the weight when it is not normal.
func RenderTodos(items []TodoItem) string {
	return checklist.RenderItems(items, "The todo list is empty.", func(it TodoItem) string {
		line := it.State.glyph() + " " + it.Content
		if it.Weight != "" && it.Weight != WeightNormal {
			line += " (" + string(it.Weight) + ")"
		}
		return line
	})
}
