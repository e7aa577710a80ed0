package childproc

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/indusagi/induscode/workspace"
)

// sleeper starts sleep 30 with env added to ours (and, with uid >= 0, as
// that user) and returns it with a channel closed when it has exited.
func sleeper(t *testing.T, uid int, env ...string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), env...)
	if uid >= 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	return cmd, exited
}

// deadPid is the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	return dead.Process.Pid
}

func procsDir(t *testing.T) string {
	t.Helper()
	dir := workspace.At(t.TempDir()).Procs()
	if err := workspace.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeRecord(t *testing.T, path string, r any) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// killedWithin reports whether the process exited within a generous bound
// (after Reap returned, the SIGKILL is already sent; the wait is only for
// the kernel to deliver it).
func killedWithin(exited <-chan struct{}) bool {
	select {
	case <-exited:
		return true
	case <-time.After(2 * time.Second):
		return false
	}
}

// Reap kills the processes of a session whose owner is gone, and leaves
// those of a live owner (and its record) alone.
func TestReapKillsOnlyWhatDeadOwnersLeft(t *testing.T) {
	t.Parallel()
	self := startTime(os.Getpid())
	cases := []struct {
		name       string
		owner      int
		ownerStart string
		killed     bool
	}{
		{"owner alive", os.Getpid(), self, false},
		{"owner gone", deadPid(t), self, true},
		{"pid reused by another process", os.Getpid(), "1", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := procsDir(t)
			w := NewWard("")
			_, exited := sleeper(t, -1, EnvVar+"="+w.token)
			rec := filepath.Join(dir, "x.json")
			writeRecord(t, rec, record{Owner: c.owner, OwnerStart: c.ownerStart, Token: w.token})
			Reap(dir)
			if got := killedWithin(exited); got != c.killed {
				t.Errorf("killed: %v, want %v", got, c.killed)
			}
			if _, err := os.Stat(rec); (err == nil) == c.killed {
				t.Errorf("record kept: %v, want %v", err == nil, !c.killed)
			}
		})
	}
}

// A record planted in the workspace cannot make Reap kill a process that
// is not the recorded session's: the token must be a ward's (24 hex
// digits), match the whole variable, belong to a process of this user
// that started after the owner. The record is deleted all the same.
func TestReapIgnoresForgedRecords(t *testing.T) {
	t.Parallel()
	// Each case has its own token (these run in parallel); %s in env is
	// replaced by it.
	cases := []struct {
		name   string
		env    string
		uid    int
		rec    func(owner int, ownerStart, token string) any
		before bool // the process starts before the record's owner
	}{
		{name: "short token matched as a substring", env: EnvVar + "=abc",
			rec: func(o int, s, token string) any {
				return map[string]any{"owner": o, "ownerStart": s, "token": "a", "groups": []any{}}
			}},
		{name: "the old forged record", env: EnvVar + "=abc",
			rec: func(int, string, string) any { return map[string]any{"owner": 0, "token": "a", "groups": []any{}} }},
		{name: "token inside another variable", env: "NOTE=" + EnvVar + "=%s",
			rec: func(o int, s, token string) any { return record{Owner: o, OwnerStart: s, Token: token} }},
		{name: "token as a prefix of a longer value", env: EnvVar + "=%sff",
			rec: func(o int, s, token string) any { return record{Owner: o, OwnerStart: s, Token: token} }},
		{name: "no owner start time", env: EnvVar + "=%s",
			rec: func(o int, _, token string) any { return record{Owner: o, Token: token} }},
		{name: "process older than the owner", env: EnvVar + "=%s", before: true,
			rec: func(o int, s, token string) any { return record{Owner: o, OwnerStart: s, Token: token} }},
		{name: "another user's process", env: EnvVar + "=%s", uid: 65534,
			rec: func(o int, s, token string) any { return record{Owner: o, OwnerStart: s, Token: token} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			uid := -1
			if c.uid != 0 {
				if os.Geteuid() != 0 {
					t.Skip("running a process as another user needs root")
				}
				uid = c.uid
			}
			token := NewWard("").token
			dir := procsDir(t)
			_, exited := sleeper(t, uid, strings.ReplaceAll(c.env, "%s", token))
			ownerStart := startTime(os.Getpid()) // older than the sleeper
			if c.before {
				ownerStart = strconv.FormatUint(1<<40, 10) // far after the sleeper's start
			}
			rec := filepath.Join(dir, "forged.json")
			writeRecord(t, rec, c.rec(deadPid(t), ownerStart, token))
			Reap(dir)
			if killedWithin(exited) {
				t.Fatal("a process the record does not own was killed")
			}
			if _, err := os.Stat(rec); err == nil {
				t.Error("the record of a dead owner was kept")
			}
		})
	}
}

// A record that is a symlink, a named pipe or another user's file is
// deleted without being read (a pipe would hang the reader).
func TestReapDeletesRecordsThatAreNotFiles(t *testing.T) {
	t.Parallel()
	dir := procsDir(t)
	outside := filepath.Join(t.TempDir(), "target.json")
	writeRecord(t, outside, record{Owner: deadPid(t), OwnerStart: "1", Token: "0123456789abcdef01234567"})
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { Reap(dir); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Reap hangs on a named pipe")
	}
	for _, p := range []string{link, fifo} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was kept", p)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the file the link named was touched: %v", err)
	}
}

// A session killed with SIGKILL the moment its first child started must
// still leave the record that lets the next session find that child (and
// whatever it started): the record is written before the child exists.
func TestRecordExistsOnceTheFirstChildRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "procs")
	w := NewWard(dir)
	defer w.Close()
	var seen []string
	testHookStarted = func(*Ward) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			seen = append(seen, e.Name())
		}
	}
	defer func() { testHookStarted = nil }()
	cmd := exec.Command("true")
	w.Prepare(cmd)
	release, err := w.Start(cmd, true)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	release()
	if len(seen) != 1 || !strings.HasSuffix(seen[0], "-"+w.token+".json") {
		t.Fatalf("records when the child had started: %v; want the ward's record", seen)
	}
}
