package whiteboard

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/intent"
	"github.com/indusagi/induscode/tool"
)

// lessonTools are what a model gets for a lesson: the lesson's own
// intents, and the whiteboard's with a "slide" property.
func lessonTools(t *testing.T, l *LessonSession) map[string]tool.Tool {
	t.Helper()
	own, err := LessonIntents()
	if err != nil {
		t.Fatal(err)
	}
	slides, err := intent.ChildTools(intents(t), l, "slide", "the slide to change")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]tool.Tool{}
	for _, tl := range append(intent.Tools(own, l), slides...) {
		out[tl.Spec().Name] = tl
	}
	return out
}

// A lesson of two slides: each slide is a whiteboard created on first use,
// and the lesson's summary follows every change of a slide, undo included.
func TestLessonWithTwoSlides(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := NewLesson("Fractions", "intro", "summary")
	tools := lessonTools(t, l)
	if names := slices.Sorted(maps.Keys(tools)); !slices.Equal(names, []string{"add_text", "move", "set_title"}) {
		t.Fatalf("lesson tools = %v", names)
	}
	if len(l.Children()) != 0 {
		t.Fatalf("slides warmed before use: %v", l.Children())
	}

	call := func(name, args string) tool.Result {
		t.Helper()
		return tools[name].Run(ctx, json.RawMessage(args), nil)
	}
	call("add_text", `{"slide":"summary","x":0,"y":0,"content":"½ = 2/4"}`)
	call("add_text", `{"slide":"intro","x":0,"y":0,"content":"What is a half?"}`)
	call("add_text", `{"slide":"intro","x":0,"y":2,"content":"Cut a pizza"}`)
	if res := call("set_title", `{"title":"Halves"}`); res.IsError || res.PlainText() != `the lesson is now called "Halves"` {
		t.Fatalf("set_title: %+v", res)
	}
	want := "\"Halves\": 3 notes\n  intro: What is a half? | Cut a pizza\n  summary: ½ = 2/4"
	if got := l.State().String(); got != want {
		t.Fatalf("lesson:\n%s\nwant:\n%s", got, want)
	}

	// A hidden undo, dispatched by the user interface to one slide.
	if _, err := l.DispatchChild(ctx, intent.Child[Intent]{ID: "intro", Intent: Undo{}}); err != nil {
		t.Fatal(err)
	}
	if got := l.State().String(); !strings.Contains(got, "intro: What is a half?\n") || l.State().Notes != 2 {
		t.Fatalf("after undo on intro the lesson is:\n%s", got)
	}

	res := call("add_text", `{"slide":"outro","x":0,"y":0,"content":"bye"}`)
	if !res.IsError || !strings.Contains(res.PlainText(), `the lesson has no slide "outro"; its slides are intro, summary`) {
		t.Fatalf("unknown slide: %+v", res)
	}
	if res := call("set_title", `{"title":" "}`); !res.IsError || l.State().Title != "Halves" {
		t.Fatalf("empty title: %+v, title %q", res, l.State().Title)
	}
}
