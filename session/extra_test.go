package session

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/tool"
)

func greeter(name string) tool.Tool {
	return &tool.Func{
		S: tool.Spec{Name: name, Description: "greets", InputSchema: tool.EmptyObjectSchema()},
		Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result {
			return tool.Text("hello from " + name)
		},
	}
}

// Extra tools join the session after its own, run by name, and survive a
// rebuild of the tool list; a name already on the deck keeps the
// built-in and says so; NoTools leaves only the extras.
func TestExtraTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	var mu sync.Mutex
	var warnings []string
	warn := func(msg string) { mu.Lock(); warnings = append(warnings, msg); mu.Unlock() }

	s, err := Open(ctx, Options{Dir: t.TempDir(), NoMCP: true, Warn: warn, Extra: []tool.Tool{greeter("greet"), greeter("read")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := s.Tools()
	if last := tools[len(tools)-1].Spec().Name; last != "greet" {
		t.Fatalf("last tool is %q, want the extra tool greet", last)
	}
	if res := s.Run(ctx, "greet", nil); res.IsError || res.PlainText() != "hello from greet" {
		t.Fatalf("greet: %+v", res)
	}
	if res := s.Run(ctx, "read", []byte(`{"path":"nope.txt"}`)); strings.Contains(res.PlainText(), "hello from") {
		t.Fatalf("an extra tool replaced the built-in read: %s", res.PlainText())
	}
	mu.Lock()
	joined := strings.Join(warnings, "\n")
	mu.Unlock()
	if !strings.Contains(joined, `"read" is already on the deck`) {
		t.Fatalf("no warning about the duplicate name; warnings: %q", joined)
	}

	s.graftsChanged() // a rebuild must not graft the extras twice or lose them
	count := 0
	for _, tl := range s.Tools() {
		if tl.Spec().Name == "greet" {
			count++
		}
	}
	if count != 1 {
		t.Fatalf("after a rebuild greet is listed %d times, want 1", count)
	}
	mu.Lock()
	joined = strings.Join(warnings, "\n")
	mu.Unlock()
	if strings.Contains(joined, `"greet" is already`) {
		t.Fatalf("the rebuild grafted the extras onto a deck that already had them: %q", joined)
	}

	only, err := Open(ctx, Options{Dir: t.TempDir(), NoTools: true, Extra: []tool.Tool{greeter("greet")}})
	if err != nil {
		t.Fatal(err)
	}
	defer only.Close()
	var got []string
	for _, tl := range only.Tools() {
		got = append(got, tl.Spec().Name)
	}
	if len(got) != 1 || got[0] != "greet" {
		t.Fatalf("NoTools with extras lists %v, want [greet]", got)
	}
}
