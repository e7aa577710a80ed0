package intent

import (
	"context"
	"encoding/json"

	"github.com/indusagi/induscode/tool"
)

// Tools returns one tool per visible variant of set, in registration
// order, each dispatching into d: a leaf [Session], a [Parent] (its own
// intents) or one child of a parent ([Parent.At]). A call parses its input
// into the variant (bad input is an IsError result naming the field),
// dispatches it, and answers with the last event the dispatch produced;
// no event at all is an empty success. The tools are plain tool.Tool
// values: a deck grafts them (deck.Deck.Graft) and serve lists them (see
// session.Options.Extra). They are safe for concurrent use; the
// dispatcher serialises the calls.
func Tools[I any](set *Set[I], d Dispatcher[I]) []tool.Tool {
	var out []tool.Tool
	for _, v := range set.variants {
		if v.meta.Hidden {
			continue
		}
		out = append(out, &sessionTool[I]{set: set, d: d, spec: v.spec()})
	}
	return out
}

// sessionTool is the tool of one intent variant.
type sessionTool[I any] struct {
	set  *Set[I]
	d    Dispatcher[I]
	spec tool.Spec
}

var _ tool.Tool = (*sessionTool[struct{}])(nil)

func (t *sessionTool[I]) Spec() tool.Spec {
	sp := t.spec
	sp.InputSchema = append(json.RawMessage(nil), sp.InputSchema...)
	return sp
}

func (t *sessionTool[I]) Run(ctx context.Context, input json.RawMessage, _ *tool.Env) tool.Result {
	in, err := t.set.Parse(t.spec.Name, input)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	events, err := t.d.Dispatch(ctx, in)
	if err != nil {
		return tool.Errorf("%s was not applied: %v", t.spec.Name, err)
	}
	return ResultOf(events)
}

// ResultOf is the answer to a tool call whose dispatch produced events:
// the last ToolOutput or ToolError. An output that is a JSON string is
// text; any other output is a JSON block. No event is an empty success.
func ResultOf(events []Event) tool.Result {
	if len(events) == 0 {
		return tool.Result{}
	}
	last := events[len(events)-1]
	switch last.Kind {
	case ToolOutput:
		var s string
		if json.Unmarshal(last.Value, &s) == nil {
			return tool.Text(s)
		}
		return tool.Result{Blocks: []tool.Block{{Kind: tool.KindJSON, JSON: last.Value}}}
	case ToolError:
		return tool.Errorf("%s", last.Message)
	}
	return tool.Errorf("internal error: unknown agent event %v", last.Kind)
}
