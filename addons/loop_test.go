package addons

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// loopHost is a minimal agent loop of the kind a host runs around the
// deck: it fires the turn, input, chat, context and compact events and
// acts on the gate-bearing ones as a real host would.
type loopHost struct {
	d   *Dispatcher
	log []string
}

func (h *loopHost) submit(ctx context.Context, text string) {
	out := h.d.Dispatch(ctx, InputSubmit, InputPayload{Text: text})
	if out.Stop != nil {
		h.log = append(h.log, "input refused by "+string(out.Stop.Addon)+": "+out.Stop.Reason)
		return
	}
	text = out.Payload.(InputPayload).Text
	h.d.Dispatch(ctx, TurnStart, LifecyclePayload{})
	msgs := h.d.Dispatch(ctx, ContextBuild, ContextPayload{Messages: json.RawMessage(`["` + text + `"]`)}).Payload.(ContextPayload)
	params := h.d.Dispatch(ctx, ChatParams, ChatPayload{Params: json.RawMessage(`{"temperature":1}`)}).Payload.(ChatPayload)
	h.d.Dispatch(ctx, ChatMessage, MessagePayload{Message: json.RawMessage(`"ok"`)})
	h.d.Dispatch(ctx, TurnEnd, LifecyclePayload{})
	h.log = append(h.log, "turn with "+string(msgs.Messages)+" at "+string(params.Params))
}

func (h *loopHost) compact(ctx context.Context) {
	if out := h.d.Dispatch(ctx, CompactBefore, CompactPayload{Reason: "full"}); out.Stop != nil {
		h.log = append(h.log, "compaction refused: "+out.Stop.Reason)
		return
	}
	sum := h.d.Dispatch(ctx, CompactBuild, CompactPayload{Reason: "full"}).Payload.(CompactPayload)
	h.log = append(h.log, "compacted: "+sum.Reason)
}

func TestLoopEventsThroughATestHost(t *testing.T) {
	quiet := &Addon{ID: "quiet", Register: func(api API) error {
		api.On(CompactBefore, Gater(func(context.Context, Payload) Decision {
			return Decision{Stop: true, Reason: "keep the transcript"}
		}))
		return nil
	}}
	var turns []string
	goAddon := &Addon{ID: "tuner", Register: func(api API) error {
		api.On(InputSubmit, Gater(func(_ context.Context, p Payload) Decision {
			return Decision{Stop: strings.Contains(p.(InputPayload).Text, "rm -rf"), Reason: "dangerous input"}
		}))
		api.On(InputSubmit, Transformer(func(_ context.Context, p Payload) Payload {
			return InputPayload{Text: strings.ToUpper(p.(InputPayload).Text)}
		}))
		api.On(ChatParams, Transformer(func(context.Context, Payload) Payload {
			return ChatPayload{Params: json.RawMessage(`{"temperature":0}`)}
		}))
		api.On(TurnStart, Observer(func(context.Context, Payload) { turns = append(turns, "start") }))
		api.On(TurnEnd, Observer(func(context.Context, Payload) { turns = append(turns, "end") }))
		api.On(ChatMessage, Observer(func(_ context.Context, p Payload) { turns = append(turns, string(p.(MessagePayload).Message)) }))
		return nil
	}}
	h := NewHost(HostOptions{Loader: scripted{"/q": quiet}})
	h.LoadOne(context.Background(), Source{Path: "/q", ID: "q"})
	h.LoadAddon(goAddon)
	host := &loopHost{d: h.Bundle().Dispatch}
	ctx := context.Background()
	host.submit(ctx, "hello")
	host.submit(ctx, "please rm -rf /")
	host.compact(ctx)
	want := []string{
		`turn with ["HELLO"] at {"temperature":0}`,
		"input refused by tuner: dangerous input",
		"compaction refused: keep the transcript",
	}
	if strings.Join(host.log, "\n") != strings.Join(want, "\n") {
		t.Errorf("host log:\n%s\nwant:\n%s", strings.Join(host.log, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(turns, ",") != `start,"ok",end` {
		t.Errorf("turn observers saw %v", turns)
	}
}
