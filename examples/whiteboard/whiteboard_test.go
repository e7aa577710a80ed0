package whiteboard

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/intent"
)

func intents(t testing.TB) *intent.Set[Intent] {
	t.Helper()
	set, err := Intents()
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// The model sees add_text and move; select and undo are for the user
// interface but still dispatch by name.
func TestIntentNames(t *testing.T) {
	t.Parallel()
	set := intents(t)
	if got := set.Names(); !slices.Equal(got, []string{"add_text", "move"}) {
		t.Fatalf("visible names = %v", got)
	}
	var tools []string
	for _, tl := range intent.Tools(set, New()) {
		tools = append(tools, tl.Spec().Name)
	}
	if !slices.Equal(tools, []string{"add_text", "move"}) {
		t.Fatalf("tools = %v", tools)
	}
	for _, hidden := range []string{"select", "undo"} {
		if m, ok := set.Meta(hidden); !ok || !m.Hidden {
			t.Errorf("%s: %+v %v, want a hidden variant", hidden, m, ok)
		}
	}
	if in, err := set.Parse("select", json.RawMessage(`{"ids":["e1"]}`)); err != nil || !slices.Equal(in.(Select).IDs, []string{"e1"}) {
		t.Fatalf("Parse(select) = %#v, %v", in, err)
	}
	if _, err := set.Parse("undo", nil); err != nil {
		t.Fatalf("Parse(undo): %v", err)
	}
}

// What a model or a user sees for each intent: the answer, or an error
// that says what to do, and the board afterwards.
func TestReduce(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxContent+1)
	cases := []struct {
		name    string
		before  []Intent
		in      Intent
		isError bool
		answer  string // substring of the tool answer
		board   string // the board afterwards
	}{
		{"add", nil, AddText{X: 1, Y: 2, Content: "hi"}, false, `{"id":"e1"}`, ` e1 (1, 2) "hi"`},
		{"ids count up", []Intent{AddText{Content: "a"}}, AddText{X: 5, Content: "b"}, false, `{"id":"e2"}`, " e1 (0, 0) \"a\"\n e2 (5, 0) \"b\""},
		{"empty content", nil, AddText{Content: "  "}, true, "content is empty", "(empty board)"},
		{"content too long", nil, AddText{Content: long}, true, "a note holds at most 500", "(empty board)"},
		{"off the canvas", nil, AddText{X: 1e9, Content: "far"}, true, "off the canvas", "(empty board)"},
		{"move", []Intent{AddText{Content: "a"}}, Move{ID: "e1", X: 3, Y: 4}, false, `"x":3,"y":4`, ` e1 (3, 4) "a"`},
		{"move unknown on empty board", nil, Move{ID: "e1"}, true, "the board is empty; add_text creates elements", "(empty board)"},
		{"move unknown", []Intent{AddText{Content: "a"}}, Move{ID: "e7"}, true, `no element "e7"; the board has e1`, ` e1 (0, 0) "a"`},
		{"select", []Intent{AddText{Content: "a"}, AddText{Content: "b"}}, Select{IDs: []string{"e2", "e2"}}, false, `{"selected":["e2"]}`, " e1 (0, 0) \"a\"\n*e2 (0, 0) \"b\""},
		{"select unknown", []Intent{AddText{Content: "a"}}, Select{IDs: []string{"e1", "e9"}}, true, `no element "e9"`, ` e1 (0, 0) "a"`},
		{"undo add", []Intent{AddText{Content: "a"}, AddText{Content: "b"}}, Undo{}, false, `"elements":1`, ` e1 (0, 0) "a"`},
		{"undo move", []Intent{AddText{Content: "a"}, Move{ID: "e1", X: 9}}, Undo{}, false, `"undo_depth":1`, ` e1 (0, 0) "a"`},
		{"undo select", []Intent{AddText{Content: "a"}, Select{IDs: []string{"e1"}}}, Undo{}, false, `"elements":1`, ` e1 (0, 0) "a"`},
		{"nothing to undo", nil, Undo{}, true, "nothing to undo", "(empty board)"},
		{"nil intent", nil, nil, true, "no intent", "(empty board)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := New()
			ctx := context.Background()
			for _, in := range c.before {
				s.Dispatch(ctx, in)
			}
			events, err := s.Dispatch(ctx, c.in)
			if err != nil {
				t.Fatal(err)
			}
			res := intent.ResultOf(events)
			if res.IsError != c.isError || !strings.Contains(res.PlainText(), c.answer) {
				t.Fatalf("answer %q (error %v), want %q (error %v)", res.PlainText(), res.IsError, c.answer, c.isError)
			}
			if got := s.State().String(); got != c.board {
				t.Fatalf("board:\n%s\nwant:\n%s", got, c.board)
			}
		})
	}
}

// Bounds are recompiled after every change, undo included.
func TestBoundsRecompiled(t *testing.T) {
	t.Parallel()
	s := New()
	ctx := context.Background()
	s.Dispatch(ctx, AddText{X: 1, Y: 1, Content: "abc"})
	s.Dispatch(ctx, AddText{X: -2, Y: 5, Content: "z"})
	if got, want := s.State().Bounds, (Rect{-2, 1, 4, 6}); got != want {
		t.Fatalf("bounds %+v, want %+v", got, want)
	}
	s.Dispatch(ctx, Move{ID: "e2", X: 10, Y: 0})
	if got, want := s.State().Bounds, (Rect{1, 0, 11, 2}); got != want {
		t.Fatalf("after move: bounds %+v, want %+v", got, want)
	}
	s.Dispatch(ctx, Undo{})
	s.Dispatch(ctx, Undo{})
	if got, want := s.State().Bounds, (Rect{1, 1, 4, 2}); got != want {
		t.Fatalf("after two undos: bounds %+v, want %+v", got, want)
	}
}

// Undo reaches back maxUndo changes and no further.
func TestUndoDepthLimit(t *testing.T) {
	t.Parallel()
	s := New()
	ctx := context.Background()
	for range maxUndo + 5 {
		s.Dispatch(ctx, AddText{Content: "n"})
	}
	for i := range maxUndo {
		if events, _ := s.Dispatch(ctx, Undo{}); intent.ResultOf(events).IsError {
			t.Fatalf("undo %d of %d failed", i+1, maxUndo)
		}
	}
	if len(s.State().Elements) != 5 {
		t.Fatalf("%d elements left, want 5", len(s.State().Elements))
	}
	if events, _ := s.Dispatch(ctx, Undo{}); !intent.ResultOf(events).IsError {
		t.Fatal("undo went past the limit")
	}
}

// The reducer never changes the board it is given: an old state a reader
// still holds stays as it was.
func TestReduceKeepsOldBoards(t *testing.T) {
	t.Parallel()
	s := New()
	ctx := context.Background()
	s.Dispatch(ctx, AddText{Content: "a"})
	s.Dispatch(ctx, AddText{Content: "b"})
	held := s.State()
	want := held.String()
	s.Dispatch(ctx, Move{ID: "e1", X: 7})
	s.Dispatch(ctx, Undo{})
	s.Dispatch(ctx, AddText{Content: "c"})
	s.Dispatch(ctx, Select{IDs: []string{"e1"}})
	if held.String() != want {
		t.Fatalf("a held board changed:\n%s\nwant\n%s", held, want)
	}
}
