// Package childproc makes the processes the deck starts die with the
// session, also when indusr itself is killed with SIGKILL and gets no
// chance to stop them.
//
// Three things together do it. Every child carries the session's token in
// its environment (EnvVar), which its descendants inherit, also those that
// leave its process group with setsid. On Linux each child gets a
// parent-death signal, so the direct child dies with indusr; Go ties that
// signal to the OS thread that started the child, so children are started
// from one locked thread that lives as long as any of them (a sandboxed
// child from a confined thread of its own, see package jail). And each
// session keeps a small record (owner pid and start time, token, process
// groups) under the workspace state folder: the next session start kills
// whatever carries the token of an owner that is gone ([Reap]), and a
// session's own Close kills what escaped its groups ([Ward.Close]).
//
// It also holds the one supervised child, [Child], that the bridge's stdio
// servers, process addons and the shell's commands run as: started in its
// own process group and the ward, its stderr drained into its log, stopped
// politely and then killed after the shared waits, reaped without
// signalling a reused pid. [Group] and [OpenPipes] are its parts.
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

	mu      sync.Mutex
	groups  []leader
	adopted []leader // children given back to us (see BecomeSubreaper)
	used    bool
	ready   bool   // the record's folder exists
	start   string // the owner's start time, read once
	saved   bool   // the record exists (with the token)
	dirty   bool   // the groups changed since the last save
	saving  bool   // a background save is running
	savers  sync.WaitGroup
}

// record is the file a ward keeps.
type record struct {
	Owner      int      `json:"owner"`
	OwnerStart string   `json:"ownerStart,omitempty"` // the owner's start time (Linux), against pid reuse
	Token      string   `json:"token"`
	Groups     []leader `json:"groups"`
}

// leader is a recorded process group: its leader's pid, which is the
// group's id, and the leader's start time.
type leader struct {
	Pid   int    `json:"pid"`
	Start string `json:"start,omitempty"`
}

// tokenBytes is the size of a token: 96 random bits, which no one can
// guess, spelled as 24 hex digits. A record whose token is anything else
// was not written by a ward.
const tokenBytes = 12

// validToken reports whether t has the exact shape of a ward's token.
func validToken(t string) bool {
	if len(t) != 2*tokenBytes {
		return false
	}
	for _, c := range t {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// NewWard returns a ward whose record is kept in dir (created on first
// need with mkdir); with dir "" it keeps none.
func NewWard(dir string) *Ward {
	var b [tokenBytes]byte
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

// testHookStarted, when set by a test, runs as soon as a child has started.
var testHookStarted func(*Ward)

// Start starts cmd (prepared) and records its process group (the child's
// pid, for a child that leads its group). Call release once the child has
// been reaped.
func (w *Ward) Start(cmd *exec.Cmd, leadsGroup bool) (release func(), err error) {
	w.mu.Lock()
	if !w.saved {
		// The first record, with the token Reap looks for, is written
		// before the child exists: a SIGKILL between the child's start
		// and the write would leave it, and all it starts, unrecorded.
		w.saveLocked()
		w.saved = true
	}
	w.mu.Unlock()
	done, err := start(cmd)
	if err != nil {
		return nil, err
	}
	if testHookStarted != nil {
		testHookStarted(w)
	}
	pid := cmd.Process.Pid
	w.mu.Lock()
	w.used = true
	if leadsGroup {
		w.groups = append(w.groups, leader{Pid: pid, Start: startTime(pid)})
	}
	if leadsGroup {
		// The group id matters only for a process that dropped the
		// token from its environment: it is written in the background,
		// off the path of every command.
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
		w.groups = slices.DeleteFunc(w.groups, func(g leader) bool { return g.Pid == pid })
		w.mu.Unlock()
		done()
		// What the child left running came back to us when it exited.
		w.adopt()
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
	err = workspace.WriteFile(w.file, b, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		// The folder went away (a user cleaned .indusvx): make it again.
		if workspace.MkdirAll(filepath.Dir(w.file), 0o700) == nil {
			_ = workspace.WriteFile(w.file, b, 0o600)
		}
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
		w.killAdopted()
		killCarriers([]record{{Owner: os.Getpid(), OwnerStart: startTime(os.Getpid()), Token: w.token}})
	}
	w.savers.Wait() // a late save must not bring the record back
	if w.file != "" {
		workspace.Remove(w.file)
	}
}

// Reap kills the processes of sessions recorded in dir whose owner is
// gone (killed before it could stop them), then removes their records.
// It returns how many processes it killed. Records of live sessions are
// left alone.
//
// The folder sits in the workspace, where anyone may have planted a
// record, so a record is acted on only when it has the exact shape a ward
// writes (a token of 24 hex digits, the owner's start time) and is a
// plain file of the user's; anything else is deleted unread. Even then
// only processes of the same user that carry the whole token as their
// environment variable, and started after the owner, are killed (see
// killCarriers).
func Reap(dir string) int {
	entries, err := workspace.ReadDir(dir)
	if err != nil {
		return 0
	}
	var dead []record
	var files []string
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if !strings.HasSuffix(name, ".json") {
			// A temp file of a cut write is swept below; an entry that
			// is no record at all is not ours to delete.
			continue
		}
		r, ok := readRecord(p)
		if !ok {
			files = append(files, p)
			continue
		}
		if ownerAlive(r) {
			continue
		}
		dead = append(dead, r)
		files = append(files, p)
	}
	workspace.Sweep(dir)
	n := 0
	if len(dead) > 0 {
		n = killCarriers(dead)
	}
	for _, f := range files {
		_ = workspace.Remove(f)
	}
	return n
}

// readRecord reads and checks the record at path; ok is false for one
// that must be deleted, never acted on.
func readRecord(path string) (r record, ok bool) {
	b, err := workspace.ReadFile(path) // a symlink, pipe or foreign file is refused
	if err != nil || len(b) > maxRecord {
		return r, false
	}
	if json.Unmarshal(b, &r) != nil || !validToken(r.Token) || r.Owner <= 0 {
		return r, false
	}
	if needStart && r.OwnerStart == "" {
		return r, false
	}
	for _, g := range r.Groups {
		if g.Pid <= 0 || (needStart && g.Start == "") {
			return r, false
		}
	}
	return r, true
}

// maxRecord bounds the record read: a ward's holds a few dozen groups.
const maxRecord = 1 << 20

func ownerAlive(r record) bool {
	if r.Owner <= 0 || !pidAlive(r.Owner) {
		return false
	}
	return r.OwnerStart == "" || startTime(r.Owner) == r.OwnerStart
}
