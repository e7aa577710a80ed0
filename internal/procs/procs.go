// Package procs connects work that spreads over every CPU with a host that
// runs Go code on fewer processors while it is calm.
//
// indusr serve runs Go code on one processor while calls come one at a
// time (package serve says why). A parallel tree walk (grep, find) would
// then get one processor for all its workers, so a walk that grows large
// says so with [Wide], and the host's governor, installed with [Govern],
// gives the process Go's default processor count for as long as the walk
// runs. Without a governor Wide costs one atomic load. Parallel work sizes
// itself by [Default], not by the count of the moment.
package procs

import (
	"runtime"
	"sync/atomic"
)

// defaultProcs is GOMAXPROCS as the process started: Go's default, which
// follows the CPU quota, unless the environment set it.
var defaultProcs = runtime.GOMAXPROCS(0)

// Default is how many processors parallel work should plan for: the
// processor count the process started with, or the current one if more.
// A calm server runs on fewer, and lifts the count when the work says it
// is [Wide].
func Default() int { return max(defaultProcs, runtime.GOMAXPROCS(0)) }

var governor atomic.Pointer[func() (end func())]

// Govern installs lift as the process's governor: Wide calls it, and the
// function lift returns when the wide work ends. remove uninstalls it,
// unless another governor has been installed since.
func Govern(lift func() (end func())) (remove func()) {
	p := &lift
	governor.Store(p)
	return func() { governor.CompareAndSwap(p, nil) }
}

// Wide says that the caller is running work on every CPU; call end when
// that work is over.
func Wide() (end func()) {
	if lift := governor.Load(); lift != nil {
		return (*lift)()
	}
	return func() {}
}
