package shell

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/indusagi/induscode/tool"
)

// proc runs one process-tool call and fails the test on an error result.
func proc(t *testing.T, env *tool.Env, in map[string]any) string {
	t.Helper()
	r := call(t, ProcessTool(), env, in)
	if r.IsError {
		t.Fatalf("process %v: %s", in, text(r))
	}
	return text(r)
}

var startedID = regexp.MustCompile(`^Started (p\d+) \(pid (\d+)\)`)

func startBg(t *testing.T, env *tool.Env, command string) (id string, pid int) {
	t.Helper()
	out := proc(t, env, map[string]any{"action": "start", "command": command})
	m := startedID.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("start said:\n%s", out)
	}
	fmt.Sscan(m[2], &pid)
	if strings.Contains(out, "\n--- ") {
		t.Fatalf("a start that did not wait showed output, which the first read would then miss:\n%s", out)
	}
	return m[1], pid
}

// Output returns only what is new since the last read.
func TestProcessOutputReturnsOnlyNewLines(t *testing.T) {
	t.Parallel()
	env := session(t)
	id, _ := startBg(t, env, `echo first; echo oops >&2; while [ ! -e go ]; do sleep 0.02; done; echo second; echo third`)
	p, err := EngineOf(env).Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	// stdout and stderr are separate pipes: wait until both old lines are
	// in, then read them, before releasing the process.
	awaitLines(t, p, 1, 1)
	first := proc(t, env, map[string]any{"action": "output", "id": id})
	if !strings.Contains(first, "--- stdout: 1 new line ---\nfirst") || !strings.Contains(first, "--- stderr: 1 new line ---\noops") {
		t.Fatalf("first read:\n%s", first)
	}
	if err := os.WriteFile(filepath.Join(env.Dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := proc(t, env, map[string]any{"action": "wait", "id": id, "yield_ms": 600000})
	if _, body, _ := strings.Cut(out, "\n"); strings.Contains(body, "first") || strings.Contains(body, "oops") {
		t.Errorf("second read repeated old lines:\n%s", out)
	}
	if !strings.Contains(out, "--- stdout: 2 new lines ---\nsecond\nthird") || !strings.Contains(out, "exited with code 0") {
		t.Errorf("second read:\n%s", out)
	}
	if out := proc(t, env, map[string]any{"action": "output", "id": id}); !strings.HasSuffix(out, "No new output.") {
		t.Errorf("third read:\n%s", out)
	}
}

// A start that did not wait reports no output, however fast the process
// printed: all of it, stdout and stderr, is in the first read. (Output
// that raced into the start result left the first read with stderr only.)
func TestStartWithoutWaitLeavesOutputToFirstRead(t *testing.T) {
	t.Parallel()
	env := session(t)
	e := EngineOf(env)
	p, err := e.Start(`echo first; echo oops >&2`, env.Dir)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done() // everything it printed is in, as on a loaded machine
	r := startReport(p, 0, processVerbs)
	if got := text(r); !strings.HasPrefix(got, "Started "+p.ID+" ") || strings.Contains(got, "\n---") {
		t.Fatalf("start report:\n%s", got)
	}
	out := proc(t, env, map[string]any{"action": "output", "id": p.ID})
	if !strings.Contains(out, "--- stdout: 1 new line ---\nfirst") || !strings.Contains(out, "--- stderr: 1 new line ---\noops") {
		t.Fatalf("first read:\n%s", out)
	}
}

// awaitLines waits, woken by the process's output notices, until its
// stdout and stderr hold at least out and errs finished lines. When they
// never do it says whether the process still runs and what its capture
// files hold, which tells output lost on the way from a process that was
// stopped before it wrote.
func awaitLines(t *testing.T, p *Proc, out, errs int64) {
	t.Helper()
	bound := time.NewTimer(time.Minute) // a hang, not a pace: the wait ends on events
	defer bound.Stop()
	for {
		wake := p.note.wait() // before looking: no write is missed
		_, o, _ := p.out.stats()
		_, e, _ := p.err.stats()
		if o >= out && e >= errs {
			return
		}
		select {
		case <-wake:
			continue
		case <-bound.C:
		case <-p.Done():
			if _, o, _ = p.out.stats(); o >= out {
				if _, e, _ = p.err.stats(); e >= errs {
					return
				}
			}
		}
		var files strings.Builder
		for _, path := range []string{p.out.capturePath, p.err.capturePath} {
			b, err := os.ReadFile(path)
			fmt.Fprintf(&files, "\n%s: %q %v", path, b, err)
		}
		t.Fatalf("%s has %d stdout and %d stderr lines, want %d and %d; %s%s", p.ID, o, e, out, errs, p.state().detail, files.String())
	}
}

// stalledWriter stands in for a capture file on a busy disk: each write
// waits until release is closed.
type stalledWriter struct{ release <-chan struct{} }

func (w stalledWriter) Write(p []byte) (int, error) { <-w.release; return len(p), nil }
func (stalledWriter) Close() error                  { return nil }

// What a process prints is readable as soon as it leaves the pipe, also
// while the write to its capture file is held up.
func TestOutputReadableWhileCaptureFileStalls(t *testing.T) {
	t.Parallel()
	env := session(t)
	e := EngineOf(env)
	release := make(chan struct{})
	e.create = func(string) (io.WriteCloser, string, error) { return stalledWriter{release}, "/dev/null", nil }
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the session's Close, which waits for the output
	p, err := e.Start(`echo first; echo oops >&2`, env.Dir)
	if err != nil {
		t.Fatal(err)
	}
	awaitLines(t, p, 1, 1)
	if out := text(e.OutputAction(p.ID, "")); !strings.Contains(out, "first") || !strings.Contains(out, "oops") {
		t.Errorf("output while the capture file stalls:\n%s", out)
	}
	free()
	<-p.Done()
}

// waitOutput waits with the wait action until a line of output (not the
// header, which repeats the command) contains want. It returns all the
// output it read.
func waitOutput(t *testing.T, env *tool.Env, id, want string) string {
	t.Helper()
	var all strings.Builder
	for !strings.Contains(all.String(), want) {
		r := call(t, ProcessTool(), env, map[string]any{"action": "wait", "id": id, "pattern": regexp.QuoteMeta(want), "timeout_ms": 60000})
		if r.IsError {
			t.Fatalf("wait: %s", text(r))
		}
		_, body, _ := strings.Cut(text(r), "\n")
		all.WriteString(body + "\n")
		if reason := waitReason(t, r); reason != "pattern" && !strings.Contains(all.String(), want) {
			t.Fatalf("the wait for %q ended by %s; got:\n%s", want, reason, all.String())
		}
	}
	return all.String()
}

// waitReason is why a wait action's result says it ended.
func waitReason(t *testing.T, r tool.Result) string {
	t.Helper()
	var st struct {
		Reason string `json:"reason"`
	}
	if len(r.Blocks) < 2 || json.Unmarshal(r.Blocks[len(r.Blocks)-1].JSON, &st) != nil {
		t.Fatalf("a wait result without its status block: %+v", r)
	}
	return st.Reason
}

// waitLines waits until process id has written n lines to stdout.
func waitLines(t *testing.T, env *tool.Env, id string, n int64) {
	t.Helper()
	p, err := EngineOf(env).Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	awaitLines(t, p, n, 0)
}

func TestProcessFilter(t *testing.T) {
	t.Parallel()
	env := session(t)
	out := proc(t, env, map[string]any{"action": "start", "command": "seq 1 20", "yield_ms": 10000})
	if !strings.Contains(out, "exited with code 0") {
		t.Fatalf("a quick command should end within yield_ms:\n%s", out)
	}
	if !strings.Contains(out, "--- stdout: 20 new lines ---\n1\n2\n") {
		t.Errorf("start after yield should carry the output:\n%s", out)
	}
	id, _ := startBg(t, env, "seq 1 20; sleep 300")
	waitLines(t, env, id, 20)
	out = proc(t, env, map[string]any{"action": "output", "id": id, "filter": `^1\d$`})
	if !strings.Contains(out, "--- stdout: 10 of 20 new lines match ^1\\d$ ---\n10\n11\n") || strings.Contains(out, "\n9\n") {
		t.Errorf("filtered output:\n%s", out)
	}
	r := call(t, ProcessTool(), env, map[string]any{"action": "output", "id": id, "filter": "("})
	if !r.IsError || !strings.Contains(text(r), "not a valid regular expression") {
		t.Errorf("bad filter: %s", text(r))
	}
}

// kill: SIGTERM first, SIGKILL after StopGrace for a process that ignores
// SIGTERM, and nothing of its group survives.
func TestProcessKillEscalatesToSIGKILL(t *testing.T) {
	t.Parallel()
	env := session(t)
	id, pid := startBg(t, env, `trap '' TERM; sleep 300 & echo pid:$!; echo ready; wait`)
	first := waitOutput(t, env, id, "ready")
	start := time.Now()
	out := proc(t, env, map[string]any{"action": "kill", "id": id})
	took := time.Since(start)
	if !strings.Contains(out, "stopped with SIGKILL after ignoring SIGTERM for 3s") {
		t.Errorf("kill said:\n%s", out)
	}
	if took < StopGrace || took > StopGrace+2*time.Second {
		t.Errorf("kill took %v, want about %v", took, StopGrace)
	}
	requireDead(t, append(pids(t, first), pid))
}

func TestProcessKillPoliteProcess(t *testing.T) {
	t.Parallel()
	env := session(t)
	id, pid := startBg(t, env, `sleep 300 & echo pid:$!; wait`)
	first := waitOutput(t, env, id, "pid:")
	start := time.Now()
	out := proc(t, env, map[string]any{"action": "kill", "id": id})
	if took := time.Since(start); took > time.Second {
		t.Errorf("a process that obeys SIGTERM took %v to stop", took)
	}
	if !strings.Contains(out, "stopped with SIGTERM") {
		t.Errorf("kill said:\n%s", out)
	}
	requireDead(t, append(pids(t, first), pid))
	if out := proc(t, env, map[string]any{"action": "kill", "id": id}); !strings.Contains(out, "had already ended") {
		t.Errorf("second kill said:\n%s", out)
	}
}

func TestProcessListAndErrors(t *testing.T) {
	t.Parallel()
	env := session(t)
	if out := proc(t, env, map[string]any{"action": "list"}); out != "No background processes in this session." {
		t.Errorf("empty list: %q", out)
	}
	proc(t, env, map[string]any{"action": "start", "command": "exit 4", "yield_ms": 10000})
	startBg(t, env, "sleep 300")
	r := call(t, ProcessTool(), env, map[string]any{"action": "list"})
	want := regexp.MustCompile(`(?m)^ID\tSTATE\tEXIT\tAGE\tCOMMAND\np1\texited\t4\t\d+s\texit 4\np2\trunning\t-\t\d+s\tsleep 300$`)
	if !want.MatchString(text(r)) {
		t.Errorf("list:\n%s", text(r))
	}
	var rows struct {
		Processes []struct {
			ID       string `json:"id"`
			State    string `json:"state"`
			ExitCode *int   `json:"exitCode"`
		} `json:"processes"`
	}
	if len(r.Blocks) != 2 || json.Unmarshal(r.Blocks[1].JSON, &rows) != nil || len(rows.Processes) != 2 ||
		*rows.Processes[0].ExitCode != 4 || rows.Processes[1].ExitCode != nil {
		t.Errorf("list JSON: %s", r.Blocks[len(r.Blocks)-1].JSON)
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"action": "output", "id": "p9"}, `no background process "p9"; known ids: p1, p2`},
		{map[string]any{"action": "wait"}, "id is required"},
		{map[string]any{"action": "start"}, "command is required"},
		{map[string]any{"action": "restart"}, "field action"},
		{map[string]any{"action": "wait", "id": "p1", "yield_ms": 600001}, "field yield_ms"},
	} {
		r := call(t, ProcessTool(), env, c.in)
		if !r.IsError || !strings.Contains(text(r), c.want) {
			t.Errorf("%v: got %v %q, want an error with %q", c.in, r.IsError, text(r), c.want)
		}
	}
}

// Closing the session stops background and foreground processes alike,
// and later starts are refused.
func TestCloseStopsEverything(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	var all []int
	for range 3 {
		id, pid := startBg(t, env, `trap '' TERM; sleep 300 & echo pid:$!; echo ready; wait`)
		all = append(all, pid)
		all = append(all, pids(t, waitOutput(t, env, id, "ready"))...)
	}
	bashDone := make(chan string)
	go func() {
		bashDone <- text(call(t, BashTool(), env, map[string]any{"command": "echo $$ > fg.pid; sleep 300"}))
	}()
	waitFile(t, filepath.Join(env.Dir, "fg.pid"))
	var fg int
	b, _ := os.ReadFile(filepath.Join(env.Dir, "fg.pid"))
	fmt.Sscan(string(b), &fg)
	all = append(all, fg)

	start := time.Now()
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > StopGrace+2*time.Second {
		t.Errorf("Close took %v; groups should be stopped at once, not one after another", took)
	}
	requireDead(t, all)
	// Close may catch the call after its process started but before the
	// engine filed it; either way the process is stopped and said so.
	if out := <-bashDone; !strings.Contains(out, "stopped because the session ended") && !strings.Contains(out, "the session has ended; its processes were stopped") {
		t.Errorf("the running bash call said:\n%s", out)
	}
	r := call(t, ProcessTool(), env, map[string]any{"action": "start", "command": "true"})
	if !r.IsError || !strings.Contains(text(r), "session has ended") {
		t.Errorf("start after close: %s", text(r))
	}
	r = call(t, BashTool(), env, map[string]any{"command": "true"})
	if !r.IsError || !strings.Contains(text(r), "session has ended") {
		t.Errorf("bash after close: %s", text(r))
	}
}

func TestMaxRunning(t *testing.T) {
	t.Parallel()
	env := session(t)
	e := EngineOf(env)
	for range MaxRunning {
		if _, err := e.Start("sleep 300", env.Dir); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Start("sleep 300", env.Dir); err == nil || !strings.Contains(err.Error(), "stop one first") {
		t.Fatalf("start beyond MaxRunning: %v", err)
	}
}

// The capture files hold every byte each stream wrote, beyond what the
// ring keeps.
func TestCaptureFilesHoldEverything(t *testing.T) {
	t.Parallel()
	env := session(t)
	e := EngineOf(env)
	p, err := e.Start(`seq 1 300000; seq 1 5000 >&2`, env.Dir)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	out := p.renderNew(nil, MaxModelChars, false)
	m := regexp.MustCompile(`all output is in (\S+\.stdout\.log)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no capture path in:\n%.500s", out)
	}
	want, _ := seqOutput(300000)
	if got, err := os.ReadFile(m[1]); err != nil || string(got) != want {
		t.Errorf("stdout capture has %d bytes, want %d (%v)", len(got), len(want), err)
	}
	want, _ = seqOutput(5000)
	if got, err := os.ReadFile(p.err.capturePath); err != nil || string(got) != want {
		t.Errorf("stderr capture has %d bytes, want %d (%v)", len(got), len(want), err)
	}
	if !strings.Contains(out, fmt.Sprintf("[%d earlier lines left memory", 300000-MaxBufferedLines)) {
		t.Errorf("no notice of the lines that left memory:\n%.500s", out)
	}
	if !strings.HasSuffix(out, "4999\n5000") || !strings.Contains(out, "299999\n300000\n") {
		t.Errorf("the newest lines are missing:\n%s", out[len(out)-200:])
	}
	if len(out) > MaxModelChars+1000 {
		t.Errorf("poll returned %d characters", len(out))
	}
}

// countingWriter stands in for a capture file: it counts, keeps nothing.
type countingWriter struct{ n *atomic.Int64 }

func (w countingWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }
func (countingWriter) Close() error                  { return nil }

// A process that prints a gigabyte keeps the heap bounded: the ring holds
// the last MaxBufferedLines lines, everything else goes straight to the
// capture file (here a counter, so the test does not write 1 GB to disk).
func TestGigabyteOutputKeepsMemoryBounded(t *testing.T) {
	// Not parallel: the heap is measured for the whole process.
	if testing.Short() {
		t.Skip("prints 1 GB")
	}
	const total = 1 << 30
	env := session(t)
	e := EngineOf(env)
	var captured atomic.Int64
	e.create = func(string) (io.WriteCloser, string, error) { return countingWriter{&captured}, "/dev/null", nil }

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
	// 1000-byte lines on stdout, and one endless line on stderr.
	p, err := e.Start(fmt.Sprintf(`yes "$(printf '%%0999d' 7)" | head -c %d; head -c 20000000 /dev/zero | tr '\0' x >&2`, total), env.Dir)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	close(stop)
	wg.Wait()

	if got := captured.Load(); got != total+20000000 {
		t.Errorf("capture got %d bytes, want %d", got, total+20000000)
	}
	const bound = 64 << 20 // the rings' worst case is 2 x 8 MiB
	if grew := peak.Load() - min(base, peak.Load()); grew > bound {
		t.Errorf("heap grew by %d MiB while 1 GB passed through; want under %d MiB", grew>>20, bound>>20)
	}
	out, lines, _ := p.out.stats()
	if out != total || lines != total/1000+1 {
		t.Errorf("stdout: %d bytes in %d lines", out, lines)
	}
	r := p.renderNew(nil, MaxModelChars, false)
	if !strings.Contains(r, "line cut, 19995904 more bytes") {
		t.Errorf("the endless stderr line should be cut:\n%.300s", r[strings.Index(r, "--- stderr"):])
	}
	t.Logf("heap base %d MiB, peak %d MiB", base>>20, peak.Load()>>20)
}

// bash's run_in_background (Claude Code's name) starts a background
// process in working_dir and returns its id at once; process reads it.
func TestBashRunInBackground(t *testing.T) {
	t.Parallel()
	env := session(t)
	sub := filepath.Join(env.Dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r := call(t, BashTool(), env, map[string]any{
		"command":           `pwd; while [ ! -e go ]; do sleep 0.02; done; echo finished`,
		"working_dir":       "sub",
		"run_in_background": true,
		"timeout_ms":        1,
	})
	m := startedID.FindStringSubmatch(text(r))
	if r.IsError || m == nil || !strings.Contains(text(r), "process action=output id="+m[1]) {
		t.Fatalf("bash run_in_background said:\n%s", text(r))
	}
	// It returned while the command waits for the file: it runs on.
	if err := os.WriteFile(filepath.Join(sub, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := proc(t, env, map[string]any{"action": "wait", "id": m[1], "yield_ms": 10000})
	if !strings.Contains(out, sub+"\nfinished") || !strings.Contains(out, "exited with code 0") {
		t.Errorf("process wait said:\n%s", out)
	}
}
