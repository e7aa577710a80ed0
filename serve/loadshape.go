package serve

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// What [Options.AdaptGC] and [Options.AdaptProcs] set, by load. The
// measurements behind each choice are in BENCHMARKS.md ("indusr serve
// against its peers").
const (
	// calmGC is the GC target while calls come one at a time: Go's
	// default. A client that calls one tool after another waits for each
	// call, and on a young process what a small call costs is mostly
	// touching fresh memory while the heap grows to its target; a small
	// target keeps the heap small and warm.
	calmGC = 100
	// busyGC is the target while calls overlap. The MCP SDK allocates a
	// fresh 32 KiB buffer for each JSON decoding, several per message, so
	// with many clients at once the collector at 100 runs every few calls
	// and costs more CPU per call than the larger heap of a higher target.
	busyGC = 800
	// calmProcs is how many processors run Go code while calls come one
	// at a time. A call passes through several goroutines (the
	// transport's reader, the SDK's handler, a grafted server's reader);
	// with another processor idle, each handoff wakes a thread there, and
	// a thread switch costs far more than the handoff, on a virtual
	// machine most. On one processor the next goroutine runs on the same
	// thread, with fewer thread switches and less CPU per call (standard
	// input is read through the poller: a read blocked in read(2) would
	// hold the one processor). Overlapping calls get Go's default count,
	// and so does a large tree walk while it runs (package procs), which
	// is faster on every processor.
	calmProcs = 1
	// calmAfter is how long the load must stay light before the process
	// is calm again: long enough that a client pausing between bursts does
	// not make the heap shrink and grow again (fresh pages are what the
	// calm GC target saves).
	calmAfter = 30 * time.Second
)

// loadShape sets the process's GC target and processor count by load:
// calm while calls come one at a time, busy as soon as two overlap, calm
// again once a look (every calmAfter) finds that none overlapped since
// the one before. Wide work (package procs) gets Go's default count while
// it runs, whatever the load.
type loadShape struct {
	setGC    func(percent int) // nil leaves the GC target alone
	setProcs func(calm bool)   // nil leaves GOMAXPROCS alone

	mu         sync.Mutex
	inflight   int
	overlapped bool // calls overlapped since the last look
	busy       bool
	wide       int  // wide work running
	closed     bool // after close, nothing is set any more

	// What apply set last.
	gcSet     int
	procsSet  bool
	calmProcs bool

	stop, done chan struct{}
}

func newLoadShape(setGC func(int), setProcs func(bool)) *loadShape {
	l := &loadShape{setGC: setGC, setProcs: setProcs, stop: make(chan struct{}), done: make(chan struct{})}
	l.apply()
	go l.watch()
	return l
}

func setGCPercent(p int) { debug.SetGCPercent(p) }

// setProcs runs Go code on calmProcs processors, or on Go's default
// (which follows the CPU quota) when busy.
func setProcs(calm bool) {
	if calm {
		runtime.GOMAXPROCS(calmProcs)
	} else {
		runtime.SetDefaultGOMAXPROCS()
	}
}

// apply sets what the state asks for, where it changed (GOMAXPROCS stops
// the world); l.mu is held, or l is not shared yet.
func (l *loadShape) apply() {
	if l.closed {
		return // a lift that ends after close must not take processors away
	}
	gc, calm := calmGC, !l.busy && l.wide == 0
	if l.busy {
		gc = busyGC
	}
	if l.setGC != nil && gc != l.gcSet {
		l.gcSet = gc
		l.setGC(gc)
	}
	if l.setProcs != nil && (!l.procsSet || calm != l.calmProcs) {
		l.procsSet, l.calmProcs = true, calm
		l.setProcs(calm)
	}
}

// enter counts a call in; exit counts it out.
func (l *loadShape) enter() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight++
	if l.inflight < 2 {
		return
	}
	l.overlapped = true
	if !l.busy {
		l.busy = true
		l.apply()
	}
}

func (l *loadShape) exit() {
	l.mu.Lock()
	l.inflight--
	l.mu.Unlock()
}

// lift is the process's governor (procs.Govern): wide work gets every
// processor until it ends.
func (l *loadShape) lift() (end func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.wide++
	l.apply()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.wide--
			l.apply()
		})
	}
}

// look calms the process when no calls overlapped since the last look.
func (l *loadShape) look() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy && !l.overlapped && l.inflight < 2 {
		l.busy = false
		l.apply()
	}
	l.overlapped = l.inflight >= 2
}

func (l *loadShape) watch() {
	defer close(l.done)
	t := time.NewTicker(calmAfter)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			l.look()
		case <-l.stop:
			return
		}
	}
}

// close stops watching and gives the process back Go's default processor
// count (its host may go on with other work); the GC target stays as it is.
func (l *loadShape) close() {
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.setProcs != nil && l.calmProcs {
		l.calmProcs = false
		l.setProcs(false)
	}
}
