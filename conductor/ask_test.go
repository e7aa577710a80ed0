package conductor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
)

// The questions of parallel read-only calls (here a gate asks about each)
// reach Options.Ask one at a time and in the order of the calls.
func TestAskIsSerializedInCallOrder(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a.txt", "b.txt", "c.txt", "d.txt"}
	var calls []string
	for _, n := range names {
		os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644)
		calls = append(calls, "read", `{"path":"`+n+`"}`)
	}
	srv := fakemodel.Start(t, fakemodel.Call(calls...), fakemodel.Say("done"))
	asker := &addons.Addon{ID: "asker", Register: func(api addons.API) error {
		api.OnTool(addons.ToolBefore, "read", addons.Gater(func(context.Context, addons.Payload) addons.Decision {
			return addons.Decision{Ask: true, Reason: "confirm"}
		}))
		return nil
	}}
	var mu sync.Mutex
	var asked []string
	inside := make(chan struct{}, len(names))
	var overlap atomic.Bool
	opts := conductor.Options{Ask: func(_ context.Context, q conductor.Question) conductor.Answer {
		select {
		case inside <- struct{}{}:
		default:
		}
		if len(inside) > 1 {
			overlap.Store(true)
		}
		var in struct{ Path string }
		json.Unmarshal(q.Input, &in)
		mu.Lock()
		asked = append(asked, in.Path)
		first := len(asked) == 1
		mu.Unlock()
		if first {
			// Hold the first question a while: a second one asked
			// meanwhile is a question put beside it.
			for i := 0; i < 50 && len(inside) == 1; i++ {
				time.Sleep(5 * time.Millisecond)
			}
		}
		if len(inside) > 1 {
			overlap.Store(true)
		}
		<-inside
		return conductor.Answer{Allow: true}
	}}
	c := open(t, dir, srv, opts, asker)
	if res, err := c.Run(context.Background(), "read them"); err != nil || res.IsError {
		t.Fatal(res, err)
	}
	if overlap.Load() {
		t.Error("two questions were put to the user at once")
	}
	if strings.Join(asked, ",") != strings.Join(names, ",") {
		t.Errorf("asked %v, want the calls' order %v", asked, names)
	}
}
