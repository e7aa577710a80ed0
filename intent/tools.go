package intent

import (
	"context"
	"encoding/json"
	"errors"

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
	return tools(set, func(*tool.Env) (Dispatcher[I], error) { return d, nil })
}

// ToolsPerEnv is [Tools] for hosts that run many sessions with the same
// tool values (serve opens one deck session per MCP client): each deck
// session, that is each *tool.Env, gets its own dispatcher, made by mk on
// the session's first call of any of these tools and shared by all of
// them after that. A call without an Env is refused.
func ToolsPerEnv[I any](set *Set[I], mk func(env *tool.Env) Dispatcher[I]) []tool.Tool {
	key := new(envKey) // this call's tools share one dispatcher per Env
	return tools(set, func(env *tool.Env) (Dispatcher[I], error) {
		if env == nil {
			return nil, errNoEnv
		}
		d := tool.Shared(env, key, func() Dispatcher[I] { return mk(env) })
		if d == nil {
			return nil, errNoDispatcher
		}
		return d, nil
	})
}

// envKey is the key of a dispatcher in an Env; it has a non-zero size so
// that every new(envKey) is a distinct pointer.
type envKey struct{ _ byte }

var (
	errNoEnv        = errors.New("this tool keeps one document per session and was called outside a session")
	errNoDispatcher = errors.New("the host made no document for this session")
)

func tools[I any](set *Set[I], pick func(*tool.Env) (Dispatcher[I], error)) []tool.Tool {
	var out []tool.Tool
	for _, v := range set.variants {
		if v.meta.Hidden {
			continue
		}
		out = append(out, &sessionTool[I]{set: set, pick: pick, spec: v.spec()})
	}
	return out
}

// sessionTool is the tool of one intent variant.
type sessionTool[I any] struct {
	set  *Set[I]
	pick func(*tool.Env) (Dispatcher[I], error)
	spec tool.Spec
}

var _ tool.Tool = (*sessionTool[struct{}])(nil)

func (t *sessionTool[I]) Spec() tool.Spec { return tool.CloneSpec(t.spec) }

func (t *sessionTool[I]) Run(ctx context.Context, input json.RawMessage, env *tool.Env) tool.Result {
	in, err := t.set.Parse(t.spec.Name, input)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	d, err := t.pick(env)
	if err != nil {
		return tool.Errorf("%s was not applied: %v", t.spec.Name, err)
	}
	events, err := d.Dispatch(ctx, in)
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
