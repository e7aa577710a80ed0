package serve

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The GC target rises as soon as two calls overlap and comes down only
// after a look finds that none overlapped since the one before.
func TestGCTargetFollowsOverlap(t *testing.T) {
	var mu sync.Mutex
	var got []int
	g := newGCTarget(func(p int) { mu.Lock(); got = append(got, p); mu.Unlock() })
	defer g.close()
	want := func(seq ...int) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(got, seq) {
			t.Fatalf("targets set %v, want %v", got, seq)
		}
	}
	want(calmGC)

	g.enter() // one call at a time: no change
	g.exit()
	g.enter()
	g.exit()
	g.look()
	want(calmGC)

	g.enter()
	g.enter() // two at once
	want(calmGC, busyGC)
	g.enter() // a third changes nothing
	g.exit()
	g.exit()
	g.look() // they overlapped since the last look: stay busy
	want(calmGC, busyGC)
	g.exit()
	g.enter() // one at a time again
	g.exit()
	g.look()
	want(calmGC, busyGC, calmGC)
}

// A look while calls overlap keeps the target up through the next look
// too, even if they end in between.
func TestGCTargetStaysBusyWhileOverlapping(t *testing.T) {
	var got []int
	g := &gcTarget{set: func(p int) { got = append(got, p) }}
	g.enter()
	g.enter()
	g.look()
	g.exit()
	g.exit()
	g.look()
	if !slices.Equal(got, []int{busyGC}) {
		t.Fatalf("targets set %v, want only %d", got, busyGC)
	}
	g.look()
	if !slices.Equal(got, []int{busyGC, calmGC}) {
		t.Fatalf("targets set %v, want it back at %d", got, calmGC)
	}
}

// gcPercent reads the process's GC target.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// Through a server: two calls at once raise the process's GC target, and
// closing the server stops its watch (goleak checks at the end).
func TestAdaptGCThroughAServer(t *testing.T) {
	defer debug.SetGCPercent(gcPercent())
	opts := sessionOptions(workspace(t, nil))
	opts.AdaptGC = true
	url, _ := startHTTP(t, opts, HTTPOptions{})
	if p := gcPercent(); p != calmGC {
		t.Fatalf("a new server set the GC target to %d, want %d", p, calmGC)
	}
	cs := httpClient(t, url, nil)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep 0.5"}})
			if err == nil && res.IsError {
				err = fmt.Errorf("bash failed: %v", res.Content)
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if p := gcPercent(); p != busyGC {
		t.Errorf("after two calls at once the GC target is %d, want %d", p, busyGC)
	}
}
