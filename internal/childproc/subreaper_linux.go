//go:build linux

package childproc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// A process that leaves its group and clears its environment (env -i
// setsid cmd &) carries neither a group nor a token a ward knows. As a
// child subreaper, indusr gets it back when its parent exits: the kernel
// re-parents it to us instead of to init. A ward then counts the children
// it did not start itself as its own (adopted when one of its children
// ends) and kills them, with all they started, when it closes.

// subreaping is set once [BecomeSubreaper] succeeded.
var subreaping atomic.Bool

// BecomeSubreaper makes this process the child subreaper of every process
// it starts (Linux's PR_SET_CHILD_SUBREAPER), so that descendants whose
// parent exits come back to it and wards can kill them at the end of a
// session. It changes the whole process, and from then on every child the
// process starts must go through this package (a child started elsewhere
// could be taken for an adopted one), so a program's main path opts in
// (indusr's main does); the library never does it on its own.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return err
	}
	subreaping.Store(true)
	return nil
}

// family is what the process knows of its children: those started here
// (until reaped) and the adopted ones, by the ward that owns them.
var family = struct {
	sync.Mutex
	started map[int]bool
	adopted map[int]*Ward
}{started: map[int]bool{}, adopted: map[int]*Ward{}}

func noteStarted(pid int) {
	family.Lock()
	family.started[pid] = true
	family.Unlock()
}

func noteReaped(pid int) {
	family.Lock()
	delete(family.started, pid)
	family.Unlock()
}

// adopt makes w the owner of this process's children that it neither
// started nor gave to another ward, and reaps those that have exited.
func (w *Ward) adopt() {
	if !subreaping.Load() {
		return
	}
	self := os.Getpid()
	family.Lock()
	defer family.Unlock()
	for pid, st := range children(self) {
		if family.started[pid] {
			continue
		}
		if st.zombie {
			reap(pid)
			continue
		}
		if family.adopted[pid] == nil {
			family.adopted[pid] = w
			w.mu.Lock()
			w.adopted = append(w.adopted, leader{Pid: pid, Start: st.start})
			w.mu.Unlock()
		}
	}
}

// killAdopted kills the ward's adopted processes that are still the ones
// adopted, with every process below them, and reaps them.
func (w *Ward) killAdopted() {
	if !subreaping.Load() {
		return
	}
	w.adopt()
	w.mu.Lock()
	adopted := w.adopted
	w.adopted = nil
	w.mu.Unlock()
	if len(adopted) == 0 {
		return
	}
	tree := parents()
	for _, a := range adopted {
		if startTime(a.Pid) != a.Start {
			continue
		}
		for _, pid := range below(tree, a.Pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(a.Pid, syscall.SIGKILL)
	}
	family.Lock()
	defer family.Unlock()
	for _, a := range adopted {
		delete(family.adopted, a.Pid)
		if startTime(a.Pid) == a.Start {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(a.Pid, &ws, 0, nil)
		}
	}
	// What the killed left behind came back to us as zombies.
	for pid, st := range children(os.Getpid()) {
		if st.zombie && !family.started[pid] {
			reap(pid)
		}
	}
}

func reap(pid int) {
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
}

type procStat struct {
	ppid   int
	start  string
	zombie bool
}

// stat reads /proc/pid/stat: state (field 3), parent (4), start time (22).
func stat(pid string) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, false
	}
	return procStat{ppid: ppid, start: f[19], zombie: f[0] == "Z"}, true
}

// children lists the processes whose parent is pid.
func children(pid int) map[int]procStat {
	out := map[int]procStat{}
	for child, st := range all() {
		if st.ppid == pid {
			out[child] = st
		}
	}
	return out
}

// parents maps every process to its parent.
func parents() map[int]int {
	out := map[int]int{}
	for pid, st := range all() {
		out[pid] = st.ppid
	}
	return out
}

func all() map[int]procStat {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]procStat, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := stat(e.Name()); ok {
			out[pid] = st
		}
	}
	return out
}

// below lists the descendants of pid in tree (child -> parent).
func below(tree map[int]int, pid int) []int {
	var out []int
	frontier := []int{pid}
	for len(frontier) > 0 {
		p := frontier[0]
		frontier = frontier[1:]
		for child, parent := range tree {
			if parent == p {
				out = append(out, child)
				frontier = append(frontier, child)
			}
		}
	}
	return out
}
