package deck

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"

	"github.com/indusagi/induscode/tool"
)

// Box runs calls by tool name within one session. It is safe for
// concurrent use; every failure of the call machinery comes back as an
// IsError result, never as a panic or a Go error.
type Box struct {
	tools  []tool.Tool // the tools by name, first of each name, in order
	byName map[string]tool.Tool
	// specs are built on first use: a box made to run one call does not
	// pay for describing every tool (see tool.New).
	specsOnce sync.Once
	specs     []tool.Spec
	env       *tool.Env
	log       *slog.Logger
}

// Box returns a runner over the deck's current tools. Later changes to the
// deck do not affect it. When two tools share a name the first wins.
func (d *Deck) Box() *Box {
	b := &Box{
		tools:  make([]tool.Tool, 0, len(d.tools)),
		byName: make(map[string]tool.Tool, len(d.tools)),
		env:    d.env,
		log:    d.setup.Framework.log(),
	}
	for _, t := range d.tools {
		name := tool.NameOf(t)
		if _, dup := b.byName[name]; dup {
			continue
		}
		b.byName[name] = t
		b.tools = append(b.tools, t)
	}
	return b
}

// described returns the specs of the box's tools, built once.
func (b *Box) described() []tool.Spec {
	b.specsOnce.Do(func() {
		b.specs = make([]tool.Spec, len(b.tools))
		for i, t := range b.tools {
			b.specs[i] = t.Spec()
		}
	})
	return b.specs
}

// Specs returns the specs of the box's tools in deck order. The slice and
// each schema are copies: a caller that changes them (to adapt a schema
// for one model API, say) changes neither this box nor any other.
func (b *Box) Specs() []tool.Spec {
	specs := b.described()
	out := make([]tool.Spec, len(specs))
	for i, s := range specs {
		out[i] = tool.CloneSpec(s)
	}
	return out
}

// Names returns the names of the box's tools in deck order, without
// describing them (cheaper than Specs when a name is all a caller needs).
func (b *Box) Names() []string {
	names := make([]string, len(b.tools))
	for i, t := range b.tools {
		names[i] = tool.NameOf(t)
	}
	return names
}

// Env returns the session environment of the box.
func (b *Box) Env() *tool.Env { return b.env }

// Lookup returns the tool with this name.
func (b *Box) Lookup(name string) (tool.Tool, bool) {
	t, ok := b.byName[name]
	return t, ok
}

var emptyObject = json.RawMessage(`{}`)

// Run calls the tool named name with input (nil means {}).
//
// If ctx ends before the tool returns, Run returns at once with an IsError
// result saying the call was cancelled or ran out of time; a tool that
// ignores its context keeps running in the background until it returns,
// and its result is dropped. A panic in the tool becomes an IsError result
// and is logged with its stack. Wrappers mapped over the deck with
// [Deck.Map] run on the caller's goroutine, outside that watcher: they
// must honor ctx themselves.
func (b *Box) Run(ctx context.Context, name string, input json.RawMessage) tool.Result {
	t, ok := b.byName[name]
	if !ok {
		return b.unknown(name)
	}
	if err := ctx.Err(); err != nil {
		return interrupted(name, ctx)
	}
	if len(input) == 0 {
		input = emptyObject
	}
	// The tool is watched (see watched): the wrappers mapped over the deck
	// run here, the tool itself beside a watcher when ctx can end.
	return guard(b.log, t, ctx, input, b.env)
}

func (b *Box) unknown(name string) tool.Result {
	names := b.Names()
	if len(names) == 0 {
		return tool.Errorf("unknown tool %q: this session has no tools", name)
	}
	return tool.Errorf("unknown tool %q. Available tools: %s", name, strings.Join(names, ", "))
}

func interrupted(name string, ctx context.Context) tool.Result {
	cause := context.Cause(ctx)
	if errors.Is(cause, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return tool.Errorf("tool %s did not finish before its deadline and was stopped (%v). Retry with a smaller task or a longer timeout.", name, cause)
	}
	return tool.Errorf("tool %s was cancelled before it finished (%v).", name, cause)
}
