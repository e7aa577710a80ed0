package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/workspace"
)

func TestBash(t *testing.T) {
	t.Parallel()
	env := session(t)
	ws := env.Dir
	if err := os.MkdirAll(filepath.Join(ws, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "file.txt"), []byte("x"), 0o644)
	bash := BashTool()
	cases := []struct {
		name    string
		in      map[string]any
		want    string // regexp the whole text must match
		wantErr bool
	}{
		{"stdout and stderr merged in order",
			map[string]any{"command": "echo one; echo two >&2; echo three; echo four >&2"},
			`^one\ntwo\nthree\nfour\nexit code 0$`, false},
		{"exit code is reported and is an error",
			map[string]any{"command": "echo failing; exit 3"}, `^failing\nexit code 3$`, true},
		{"INDUSR is set", map[string]any{"command": `echo "INDUSR=$INDUSR"`}, `^INDUSR=1\nexit code 0$`, false},
		{"stdin is the null device",
			map[string]any{"command": `read line; echo "read status $?"; cat; echo end`}, `^read status 1\nend\nexit code 0$`, false},
		{"no output", map[string]any{"command": "true"}, `^\(no output\)\nexit code 0$`, false},
		{"runs under bash", map[string]any{"command": `echo "${BASH_VERSION:+bash}"`}, `^bash\nexit code 0$`, false},
		{"default working directory is the session's",
			map[string]any{"command": "pwd"}, `^` + regexp.QuoteMeta(ws) + `\nexit code 0$`, false},
		{"working_dir inside the workspace",
			map[string]any{"command": "pwd", "working_dir": "sub/deeper"}, `^` + regexp.QuoteMeta(filepath.Join(ws, "sub", "deeper")) + `\nexit code 0$`, false},
		{"working_dir outside the workspace",
			map[string]any{"command": "pwd", "working_dir": outside}, `outside the workspace; use a directory inside`, true},
		{"working_dir escaping through a symlink",
			map[string]any{"command": "pwd", "working_dir": "escape"}, `leads outside the workspace through a symlink`, true},
		{"working_dir missing", map[string]any{"command": "pwd", "working_dir": "nope"}, `does not exist`, true},
		{"working_dir is a file", map[string]any{"command": "pwd", "working_dir": "file.txt"}, `is a file, not a directory`, true},
		{"empty command", map[string]any{"command": "  "}, `command is empty`, true},
		{"timeout over the maximum", map[string]any{"command": "true", "timeout_ms": 600001}, `field timeout_ms`, true},
		{"missing command", map[string]any{}, `command`, true},
		{"killed by a signal",
			map[string]any{"command": "kill -KILL $$"}, `exit code 137 \(killed by SIGKILL\)$`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, bash, env, c.in)
			if r.IsError != c.wantErr {
				t.Errorf("IsError = %v, want %v; text:\n%s", r.IsError, c.wantErr, text(r))
			}
			if !regexp.MustCompile(c.want).MatchString(text(r)) {
				t.Errorf("text does not match %q:\n%s", c.want, text(r))
			}
		})
	}
}

func TestBashFallsBackToSh(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		have map[string]string
		want string
	}{
		{"bash when present", map[string]string{"bash": "/x/bash", "sh": "/x/sh"}, "/x/bash"},
		{"sh without bash", map[string]string{"sh": "/x/sh"}, "/x/sh"},
		{"/bin/sh as a last resort", nil, "/bin/sh"},
	}
	for _, c := range cases {
		got := findShell(func(name string) (string, error) {
			if p, ok := c.have[name]; ok {
				return p, nil
			}
			return "", errors.New("not found")
		})
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

// A command that forks children and grandchildren, some of which ignore
// SIGTERM, is stopped whole on timeout: no PID it printed survives.
func TestBashTimeoutKillsGrandchildren(t *testing.T) {
	t.Parallel()
	env := session(t)
	cmd := `sleep 300 & echo pid:$!
( sleep 300 & echo pid:$!; sleep 300 ) & echo pid:$!
( trap '' TERM; sleep 300 & echo pid:$!; while :; do sleep 1; done ) & echo pid:$!
wait`
	start := time.Now()
	r := call(t, BashTool(), env, map[string]any{"command": cmd, "timeout_ms": 700})
	took := time.Since(start)
	out := text(r)
	if !r.IsError || !strings.Contains(out, "\ntimed out after 0.7s:") {
		t.Fatalf("want a timeout error, got:\n%s", out)
	}
	ps := pids(t, out)
	if len(ps) != 5 {
		t.Fatalf("want 5 pids in the output, got %v:\n%s", ps, out)
	}
	requireDead(t, ps)
	// One subshell ignores SIGTERM, so the group needed SIGKILL after the grace.
	if took < StopGrace || took > StopGrace+3*time.Second {
		t.Errorf("took %v, want about timeout + StopGrace", took)
	}
}

func TestBashCancelStopsTheCommand(t *testing.T) {
	t.Parallel()
	env := session(t)
	pidFile := filepath.Join(env.Dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string)
	go func() {
		r := callCtx(ctx, t, BashTool(), env, map[string]any{"command": "sleep 300 & echo $! > pid; wait"})
		done <- text(r)
	}()
	waitFile(t, pidFile)
	cancel()
	out := <-done
	if !strings.Contains(out, "cancelled after") {
		t.Errorf("want a cancellation notice, got:\n%s", out)
	}
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	requireDead(t, []int{pid})
}

// A job left in the background does not hold the call open, and does not
// survive it.
func TestBashBackgroundJobEndsWithTheCall(t *testing.T) {
	t.Parallel()
	env := session(t)
	start := time.Now()
	r := call(t, BashTool(), env, map[string]any{"command": "sleep 300 & echo pid:$!"})
	if r.IsError {
		t.Fatal(text(r))
	}
	if took := time.Since(start); took > StopGrace {
		t.Errorf("call took %v; a background job must not hold it open", took)
	}
	requireDead(t, pids(t, text(r)))
}

// Long output: the model sees the head and the tail within MaxModelChars,
// with the count of omitted lines, and the log file has every byte.
func TestBashTruncatesHeadAndTail(t *testing.T) {
	t.Parallel()
	env := session(t)
	const n = 200000
	r := call(t, BashTool(), env, map[string]any{"command": fmt.Sprintf("seq 1 %d", n)})
	if r.IsError {
		t.Fatal(text(r)[:200])
	}
	out := text(r)
	m := regexp.MustCompile(`(?s)^(.*?)\[\.\.\. (\d+) lines omitted \.\.\.\]\n(.*)\[output was (\d+) bytes in (\d+) lines; the full output is in (\S+)\]\nexit code 0$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("unexpected shape:\n%s...%s", out[:200], out[len(out)-300:])
	}
	head, tail := m[1], m[3]
	if shown := out[:strings.Index(out, "[output was")]; len([]rune(shown)) > MaxModelChars {
		t.Errorf("the model sees %d characters of output, over %d", len([]rune(shown)), MaxModelChars)
	}
	if !strings.HasPrefix(head, "1\n2\n3\n") || !strings.HasSuffix(tail, fmt.Sprintf("%d\n%d\n", n-1, n)) {
		t.Errorf("head or tail wrong: head starts %q, tail ends %q", head[:10], tail[len(tail)-20:])
	}
	headLines, tailLines := strings.Count(head, "\n"), strings.Count(tail, "\n")
	if omitted, _ := strconv.Atoi(m[2]); omitted != n-headLines-tailLines {
		t.Errorf("omitted %d lines, but head %d + tail %d of %d leaves %d", omitted, headLines, tailLines, n, n-headLines-tailLines)
	}
	// The lines shown are whole and consecutive around the marker.
	lastHead, _ := strconv.Atoi(strings.TrimSpace(head[strings.LastIndexByte(strings.TrimSuffix(head, "\n"), '\n')+1:]))
	firstTail, _ := strconv.Atoi(tail[:strings.IndexByte(tail, '\n')])
	if omitted, _ := strconv.Atoi(m[2]); firstTail-lastHead-1 != omitted {
		t.Errorf("head ends at %d and tail starts at %d, but %s lines said omitted", lastHead, firstTail, m[2])
	}
	want, err := seqOutput(n)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(m[6])
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("log file has %d bytes, want the whole %d", len(got), len(want))
	}
	if m[4] != strconv.Itoa(len(want)) || m[5] != strconv.Itoa(n) {
		t.Errorf("footer says %s bytes in %s lines, want %d in %d", m[4], m[5], len(want), n)
	}
	if filepath.Dir(m[6]) != workspace.At(env.Dir).Background() {
		t.Errorf("log file %s is not under the workspace's %s", m[6], "the background folder")
	}
}

func seqOutput(n int) (string, error) {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		sb.WriteString(strconv.Itoa(i))
		sb.WriteByte('\n')
	}
	return sb.String(), nil
}

// Output that fits is shown whole and leaves no file behind.
func TestBashShortOutputWritesNoLog(t *testing.T) {
	t.Parallel()
	env := session(t)
	line := strings.Repeat("x", 99)
	// 300 lines of 100 bytes: exactly MaxModelChars.
	r := call(t, BashTool(), env, map[string]any{"command": fmt.Sprintf("for i in $(seq 300); do echo %s; done", line)})
	if r.IsError || strings.Contains(text(r), "omitted") || strings.Count(text(r), line) != 300 {
		t.Fatalf("want all 300 lines untouched, got %d:\n%.200s", strings.Count(text(r), line), text(r))
	}
	if _, err := os.Stat(workspace.At(env.Dir).Background()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was created for output that fit: %v", workspace.At(env.Dir).Background(), err)
	}
}
