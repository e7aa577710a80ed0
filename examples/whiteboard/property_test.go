package whiteboard

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/indusagi/induscode/intent"
)

// genIntent draws intents that often fail (unknown ids, empty content) as
// well as succeed, and undos.
func genIntent() *rapid.Generator[Intent] {
	id := rapid.Map(rapid.IntRange(1, 6), func(n int) string { return fmt.Sprintf("e%d", n) })
	coord := rapid.Map(rapid.IntRange(-20, 20), func(n int) float64 { return float64(n) })
	return rapid.OneOf(
		rapid.Map(rapid.SampledFrom([]string{"a", "note", "", "ü"}), func(c string) Intent {
			return AddText{X: 1, Y: 2, Content: c}
		}),
		rapid.Custom(func(t *rapid.T) Intent {
			return AddText{X: coord.Draw(t, "x"), Y: coord.Draw(t, "y"), Content: "t"}
		}),
		rapid.Custom(func(t *rapid.T) Intent {
			return Move{ID: id.Draw(t, "id"), X: coord.Draw(t, "x"), Y: coord.Draw(t, "y")}
		}),
		rapid.Custom(func(t *rapid.T) Intent {
			return Select{IDs: rapid.SliceOfN(id, 0, 3).Draw(t, "ids")}
		}),
		rapid.Just[Intent](Undo{}),
		rapid.Just[Intent](Undo{}),
	)
}

// Any sequence of intents and undos leaves the board equal to replaying,
// on a fresh board, only the intents that survived: those that succeeded
// and were not undone.
func TestUndoEqualsReplayOfSurvivors(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := rapid.SliceOfN(genIntent(), 0, maxUndo/2).Draw(t, "ops")
		ctx := context.Background()
		live := New()
		var survivors []Intent
		for _, in := range ops {
			before := live.Version()
			events, err := live.Dispatch(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			failed := intent.ResultOf(events).IsError
			if failed != (live.Version() == before) {
				t.Fatalf("%#v: failed=%v but version %d -> %d", in, failed, before, live.Version())
			}
			switch {
			case failed:
				if _, undo := in.(Undo); undo && len(survivors) > 0 {
					t.Fatalf("undo failed with %d changes to undo", len(survivors))
				}
			case isUndo(in):
				survivors = survivors[:len(survivors)-1]
			default:
				survivors = append(survivors, in)
			}
		}
		replay := New()
		for _, in := range survivors {
			events, _ := replay.Dispatch(ctx, in)
			if res := intent.ResultOf(events); res.IsError {
				t.Fatalf("replaying %#v failed: %s", in, res.PlainText())
			}
		}
		if got, want := live.State(), replay.State(); !reflect.DeepEqual(got, want) {
			t.Fatalf("live board\n%s (depth %d)\nreplayed board\n%s (depth %d)", got, got.UndoDepth(), want, want.UndoDepth())
		}
	})
}

func isUndo(in Intent) bool {
	_, ok := in.(Undo)
	return ok
}
