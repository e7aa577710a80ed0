// Package childproc makes the processes the deck starts die with the
// session, also when indusr itself is killed with SIGKILL and gets no
// chance to stop them.
//
// Three things together do it. Every child carries the session's token in
// its environment (EnvVar), which its descendants inherit, also those that
// leave its process group with setsid. On Linux each child gets a
// parent-death signal, so the direct child dies with indusr; Go ties that
// signal to the OS thread that started the child, so children are started
// from one locked thread that lives as long as any of them. And each
// session keeps a small record (owner pid and start time, token, process
// groups) under the workspace state folder: the next session start kills
// whatever carries the token of an owner that is gone ([Reap]), and a
// session's own Close kills what escaped its groups ([Ward.Close]).
//
// It also holds what the supervisors of a long-lived child (the bridge's
// stdio servers, process addons) share: a child in its own process group
// ([OwnGroup], [Group]) stopped in order and reaped without signalling a
// reused pid, and its stdio as pipes ([OpenPipes]).
package childproc

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/indusagi/induscode/workspace"
)

// EnvVar names the environment variable that carries a session's token to
// every process it starts.
const EnvVar = "INDUSR_SESSION"

// Ward tracks the children of one session. The zero value is not useful;
// make one with [NewWard]. It is safe for concurrent use.
type Ward struct {
	token string
	file  string // the record; "" keeps none

	mu     sync.Mutex
	groups []int
	used   bool
	ready  bool   // the record's folder exists
	start  string // the owner's start time, read once
	saved  bool   // the record exists (with the token)
	dirty  bool   // the groups changed since the last save
	saving bool   // a background save is running
	savers sync.WaitGroup
}

// record is the file a ward keeps.
type record struct {
	Owner      int    `json:"owner"`
	OwnerStart string `json:"ownerStart,omitempty"` // the owner's start time (Linux), against pid reuse
	Token      string `json:"token"`
	Groups     []int  `json:"groups"`
}

// NewWard returns a ward whose record is kept in dir (created on first
// need with mkdir); with dir "" it keeps none.
func NewWard(dir string) *Ward {
	var b [12]byte
	_, _ = rand.Read(b[:])
	w := &Ward{token: hex.EncodeToString(b[:])}
	if dir != "" {
		w.file = filepath.Join(dir, fmt.Sprintf("%d-%s.json", os.Getpid(), w.token))
	}
	return w
}

// Prepare marks cmd as a child of the ward: the token in its environment
// and, on Linux, a parent-death signal. Call it before [Ward.Start]; cmd's
// SysProcAttr, if any, is kept.
func (w *Ward) Prepare(cmd *exec.Cmd) {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, EnvVar+"="+w.token)
	setDeathSignal(cmd)
}

// Start starts cmd (prepared) and records its process group (the child's
// pid, for a child that leads its group). Call release once the child has
// been reaped.
func (w *Ward) Start(cmd *exec.Cmd, leadsGroup bool) (release func(), err error) {
	done, err := start(cmd)
	if err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	w.mu.Lock()
	w.used = true
	if leadsGroup {
		w.groups = append(w.groups, pid)
	}
	if !w.saved {
		// The first record, with the token Reap looks for, is written
		// before the child can outlive us.
		w.saveLocked()
		w.saved = true
	} else {
		// Later ones only add a group id, which matters only for a
		// process that dropped the token from its environment: they are
		// written in the background, off the path of every command.
		w.dirty = true
		if !w.saving {
			w.saving = true
			w.savers.Add(1)
			go w.flush()
		}
	}
	w.mu.Unlock()
	return func() {
		// The record is not rewritten here but at the next start: a group
		// id left in it after its group ended is harmless, because Reap
		// kills a recorded group only when a process of the ward (one
		// carrying its token) is still in it. That saves a file write per
		// child, which is most of what a short command costs over its
		// own start.
		w.mu.Lock()
		w.groups = slices.DeleteFunc(w.groups, func(g int) bool { return g == pid })
		w.mu.Unlock()
		done()
	}, nil
}

// flush saves the record until no change is left to save.
func (w *Ward) flush() {
	defer w.savers.Done()
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.dirty {
		w.dirty = false
		w.saveLocked()
	}
	w.saving = false
}

// saveLocked writes the record: atomically (a reader never sees half of
// it) but not synced, as after a machine crash no process is left to kill.
func (w *Ward) saveLocked() {
	if w.file == "" {
		return
	}
	if !w.ready {
		// Once per ward: a session starts many children, and each start
		// and end saves the record.
		if err := workspace.MkdirAll(filepath.Dir(w.file), 0o700); err != nil {
			return
		}
		w.ready, w.start = true, startTime(os.Getpid())
	}
	b, err := json.Marshal(record{Owner: os.Getpid(), OwnerStart: w.start, Token: w.token, Groups: w.groups})
	if err != nil {
		return
	}
	tmp := w.file + ".new"
	err = os.WriteFile(tmp, b, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		// The folder went away (a user cleaned .indusvx): make it again.
		if workspace.MkdirAll(filepath.Dir(w.file), 0o700) == nil {
			err = os.WriteFile(tmp, b, 0o600)
		}
	}
	if err == nil {
		_ = os.Rename(tmp, w.file)
	}
}

// Close kills whatever still carries the ward's token (a process that left
// its group with setsid, say, which stopping the groups did not reach) and
// removes the record. Call it after the groups are stopped.
func (w *Ward) Close() {
	w.mu.Lock()
	used := w.used
	w.mu.Unlock()
	if used {
		killCarriers(map[string][]int{w.token: nil})
	}
	w.savers.Wait() // a late save must not bring the record back
	if w.file != "" {
		os.Remove(w.file)
	}
}

// Reap kills the processes of sessions recorded in dir whose owner is
// gone (killed before it could stop them), then removes their records.
// It returns how many processes it killed. Records of live sessions are
// left alone.
func Reap(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	dead := map[string][]int{}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") {
			// A write cut short by its writer's death; a live writer's
			// is about to be renamed and stays.
			if rest, ok := strings.CutSuffix(name, ".json.new"); ok {
				if pid, _, ok := strings.Cut(rest, "-"); ok {
					if n, err := strconv.Atoi(pid); err == nil && !pidAlive(n) {
						files = append(files, filepath.Join(dir, name))
					}
				}
			}
			continue
		}
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var r record
		if json.Unmarshal(b, &r) != nil || r.Token == "" {
			files = append(files, p)
			continue
		}
		if ownerAlive(r) {
			continue
		}
		dead[r.Token] = r.Groups
		files = append(files, p)
	}
	n := 0
	if len(dead) > 0 {
		n = killCarriers(dead)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue
		}
	}
	return n
}

func ownerAlive(r record) bool {
	if r.Owner <= 0 || !pidAlive(r.Owner) {
		return false
	}
	return r.OwnerStart == "" || startTime(r.Owner) == r.OwnerStart
}
