package serve

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/procs"
	"github.com/indusagi/induscode/session"
)

// recorder stands in for the runtime: it notes each state the shape sets.
type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) gc(p int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, fmt.Sprintf("gc=%d", p))
}

func (r *recorder) procs(calm bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, fmt.Sprintf("calm=%v", calm))
}

func (r *recorder) want(t *testing.T, seq ...string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Equal(r.got, seq) {
		t.Fatalf("set %v, want %v", r.got, seq)
	}
}

var (
	calmSet = []string{fmt.Sprintf("gc=%d", calmGC), "calm=true"}
	busySet = []string{fmt.Sprintf("gc=%d", busyGC), "calm=false"}
)

// The process turns busy as soon as two calls overlap and calm only after
// a look finds that none overlapped since the one before.
func TestLoadShapeFollowsOverlap(t *testing.T) {
	var r recorder
	l := newLoadShape(r.gc, r.procs)
	defer l.close()
	r.want(t, calmSet...)

	l.enter() // one call at a time: no change
	l.exit()
	l.enter()
	l.exit()
	l.look()
	r.want(t, calmSet...)

	l.enter()
	l.enter() // two at once
	r.want(t, seq(calmSet, busySet)...)
	l.enter() // a third changes nothing
	l.exit()
	l.exit()
	l.look() // they overlapped since the last look: stay busy
	r.want(t, seq(calmSet, busySet)...)
	l.exit()
	l.enter() // one at a time again
	l.exit()
	l.look()
	r.want(t, seq(calmSet, busySet, calmSet)...)
}

func seq(states ...[]string) []string { return slices.Concat(states...) }

// A look while calls overlap keeps the process busy through the next look
// too, even if they end in between.
func TestLoadShapeStaysBusyWhileOverlapping(t *testing.T) {
	var r recorder
	l := &loadShape{setGC: r.gc, setProcs: r.procs, gcSet: calmGC, procsSet: true, calmProcs: true}
	l.enter()
	l.enter()
	l.look()
	l.exit()
	l.exit()
	l.look()
	r.want(t, busySet...)
	l.look()
	r.want(t, seq(busySet, calmSet)...)
}

// Wide work gets every processor while it runs and gives them back when it
// ends, leaving the GC target alone; two at once end as one. While calls
// overlap the processors stay up after it. Ending twice changes nothing.
func TestLoadShapeLiftsForWideWork(t *testing.T) {
	var r recorder
	l := newLoadShape(r.gc, r.procs)
	defer l.close()
	end1 := l.lift()
	end2 := l.lift()
	r.want(t, seq(calmSet, []string{"calm=false"})...)
	end1()
	end1()
	r.want(t, seq(calmSet, []string{"calm=false"})...)
	end2()
	r.want(t, seq(calmSet, []string{"calm=false", "calm=true"})...)

	r.got = nil
	l.enter()
	l.enter()
	end := l.lift()
	end()
	r.want(t, busySet...)
}

// A grep over a large tree runs on every processor: the walk widens and
// the governor lifts the calm count until the grep ends.
func TestWideWalkLiftsAServer(t *testing.T) {
	var r recorder
	l := newLoadShape(nil, r.procs)
	defer l.close()
	remove := procs.Govern(l.lift)
	defer remove()
	files := map[string]string{}
	for i := range 600 {
		files[fmt.Sprintf("d%d/f%d.txt", i%20, i)] = "needle\n"
	}
	ds, err := session.Open(context.Background(), sessionOptions(workspace(t, files)).Session)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	res := ds.Run(context.Background(), "grep", []byte(`{"pattern":"needle","output_mode":"count"}`))
	if res.IsError {
		t.Fatal(res.PlainText())
	}
	r.want(t, "calm=true", "calm=false", "calm=true")
}

// gcPercent reads the process's GC target.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// Through a server: a new server is calm (GC target 100, one processor),
// two calls at once raise the GC target, and closing the server gives the
// process Go's default processor count and stops the watch (goleak
// checks at the end). Whether the processors rose in between depends on
// the CPU the whole test binary used meanwhile, so it is not asserted.
//
// Not parallel, as none of the tests that set process-wide state are.
func TestAdaptRuntimeThroughAServer(t *testing.T) {
	defer debug.SetGCPercent(gcPercent())
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.SetDefaultGOMAXPROCS()
	defaultProcs := runtime.GOMAXPROCS(0)
	opts := sessionOptions(workspace(t, nil))
	opts.AdaptGC, opts.AdaptProcs = true, true
	url, srv := startHTTP(t, opts, HTTPOptions{})
	if p, n := gcPercent(), runtime.GOMAXPROCS(0); p != calmGC || n != calmProcs {
		t.Fatalf("a new server set GC target %d and %d processors, want %d and %d", p, n, calmGC, calmProcs)
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
	// A second adapting server in the process is refused, saying why.
	if _, err := New(opts); err == nil || !strings.Contains(err.Error(), "only one") {
		t.Errorf("a second adapting server: %v, want a refusal", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); n != defaultProcs {
		t.Errorf("after Close the process runs on %d processors, want its default %d", n, defaultProcs)
	}
	// Once it is closed, another may adapt; a lift that ends late changes
	// nothing.
	srv2, err := New(opts)
	if err != nil {
		t.Fatalf("an adapting server after the first closed: %v", err)
	}
	end := srv2.load.lift()
	if err := srv2.Close(); err != nil {
		t.Fatal(err)
	}
	end()
	if n := runtime.GOMAXPROCS(0); n != defaultProcs {
		t.Errorf("a lift that ended after Close left %d processors, want %d", n, defaultProcs)
	}
}
