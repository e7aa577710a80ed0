package serve

import (
	"runtime/debug"
	"sync"
	"time"
)

// GC targets of [Options.AdaptGC].
const (
	// calmGC is the target while calls come one at a time: Go's default.
	// A client that calls one tool after another waits for each call, and
	// on a young process what a small call costs is mostly touching fresh
	// memory while the heap grows to its target; a small target keeps the
	// heap small and warm (a read over stdio: 0.19-0.27 ms at 100 against
	// 0.55-0.62 ms at 400 in the first few hundred calls).
	calmGC = 100
	// busyGC is the target while calls overlap. The MCP SDK allocates a
	// fresh 32 KiB buffer for each JSON decoding, several per message, so
	// with many clients at once the collector at 100 runs every few calls:
	// server CPU per read with 8 HTTP clients was about twice that at 400,
	// and 12% less at 800 than at 400 (1600 no better). The heap then
	// grows to tens of MiB.
	busyGC = 800
	// calmAfter is how long calls must come one at a time before the
	// target goes back down: long enough that a client pausing between
	// bursts does not make the heap shrink and grow again (fresh pages
	// are what the calm target saves).
	calmAfter = 30 * time.Second
)

// gcTarget sets the process's GC target by load: calmGC while calls come
// one at a time, busyGC as soon as two overlap, calmGC again once a look
// (every calmAfter) finds that none overlapped since the one before.
type gcTarget struct {
	set func(percent int) // debug.SetGCPercent, or a test's stand-in

	mu       sync.Mutex
	inflight int
	overlap  bool // calls overlapped since the last look
	busy     bool
	stop     chan struct{}
	done     chan struct{}
}

func newGCTarget(set func(int)) *gcTarget {
	g := &gcTarget{set: set, stop: make(chan struct{}), done: make(chan struct{})}
	g.set(calmGC)
	go g.watch()
	return g
}

func setGCPercent(p int) { debug.SetGCPercent(p) }

// enter counts a call in; exit counts it out.
func (g *gcTarget) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inflight++
	if g.inflight < 2 {
		return
	}
	g.overlap = true
	if !g.busy {
		g.busy = true
		g.set(busyGC)
	}
}

func (g *gcTarget) exit() {
	g.mu.Lock()
	g.inflight--
	g.mu.Unlock()
}

// look lowers the target when no calls overlapped since the last look.
func (g *gcTarget) look() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy && !g.overlap && g.inflight < 2 {
		g.busy = false
		g.set(calmGC)
	}
	g.overlap = g.inflight >= 2
}

func (g *gcTarget) watch() {
	defer close(g.done)
	t := time.NewTicker(calmAfter)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			g.look()
		case <-g.stop:
			return
		}
	}
}

// close stops watching; the target stays where it is.
func (g *gcTarget) close() {
	close(g.stop)
	<-g.done
}
