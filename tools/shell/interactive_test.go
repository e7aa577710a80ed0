package shell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/testpeer"
	"github.com/indusagi/induscode/tool"
)

// status is the JSON block an action about one process ends with.
type status struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Reason   string `json:"reason"`
	ExitCode *int   `json:"exitCode"`
	Terminal bool   `json:"terminal"`
}

func statusOf(t *testing.T, r tool.Result) status {
	t.Helper()
	var st status
	for _, b := range r.Blocks {
		if b.Kind == tool.KindJSON {
			if err := json.Unmarshal(b.JSON, &st); err != nil {
				t.Fatal(err)
			}
			return st
		}
	}
	t.Fatalf("no JSON block in %s", text(r))
	return st
}

// do runs one process call that must succeed and returns its text and
// status.
func do(t *testing.T, env *tool.Env, in map[string]any) (string, status) {
	t.Helper()
	r := call(t, ProcessTool(), env, in)
	if r.IsError {
		t.Fatalf("process %v: %s", in, text(r))
	}
	return text(r), statusOf(t, r)
}

// startPTY starts command in a terminal and returns its id.
func startPTY(t *testing.T, env *tool.Env, command string, extra map[string]any) string {
	t.Helper()
	in := map[string]any{"action": "start", "command": command, "pty": true}
	for k, v := range extra {
		in[k] = v
	}
	out, st := do(t, env, in)
	if st.ID == "" || !st.Terminal || !strings.Contains(out, "Started "+st.ID) {
		t.Fatalf("start said %+v:\n%s", st, out)
	}
	return st.ID
}

// A python3 REPL in a terminal keeps its state across calls: a variable
// defined in one call is read back in a later one, and Ctrl-D ends it.
func TestPythonREPLAcrossCalls(t *testing.T) {
	t.Parallel()
	testpeer.Command(t, "python3", "install python3 (scripts/test does)")
	env := session(t)
	id := startPTY(t, env, "python3 -q -i", nil)
	out, st := do(t, env, map[string]any{"action": "wait", "id": id, "pattern": `>>> $`, "timeout_ms": 20000})
	if st.Reason != "pattern" {
		t.Fatalf("no prompt (%s):\n%s", st.Reason, out)
	}
	out, st = do(t, env, map[string]any{"action": "input", "id": id, "text": "answer = 6 * 7\n", "pattern": `>>> $`, "timeout_ms": 20000})
	if st.Reason != "pattern" || !strings.Contains(out, ">>> answer = 6 * 7\n>>> ") {
		t.Fatalf("defining (%s):\n%s", st.Reason, out)
	}
	out, st = do(t, env, map[string]any{"action": "input", "id": id, "text": "print(answer + 1)", "keys": []string{"Enter"}, "pattern": `>>> $`, "timeout_ms": 20000})
	if st.Reason != "pattern" || !strings.Contains(out, ">>> print(answer + 1)\n43\n>>> ") {
		t.Fatalf("reading back (%s):\n%s", st.Reason, out)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape codes in the terminal text:\n%q", out)
	}
	out, st = do(t, env, map[string]any{"action": "input", "id": id, "keys": []string{"Ctrl-D"}, "timeout_ms": 20000})
	if st.Reason != "exit" || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("Ctrl-D should end python with code 0 (%+v):\n%s", st, out)
	}
}

// node's REPL the same way.
func TestNodeREPLAcrossCalls(t *testing.T) {
	t.Parallel()
	testpeer.Node(t)
	env := session(t)
	id := startPTY(t, env, "node", nil)
	if out, st := do(t, env, map[string]any{"action": "wait", "id": id, "pattern": `> $`, "timeout_ms": 20000}); st.Reason != "pattern" {
		t.Fatalf("no prompt (%s):\n%s", st.Reason, out)
	}
	// The echo of "=> " would match a bare prompt pattern halfway through
	// the line: wait for what node prints after the whole line.
	if out, st := do(t, env, map[string]any{"action": "input", "id": id, "text": "let total = [1, 2, 3].reduce((a, b) => a + b)\n", "pattern": `undefined\n> $`, "timeout_ms": 20000}); st.Reason != "pattern" {
		t.Fatalf("defining (%s):\n%s", st.Reason, out)
	}
	out, st := do(t, env, map[string]any{"action": "input", "id": id, "text": "total * 10\n", "pattern": `> $`, "timeout_ms": 20000})
	if st.Reason != "pattern" || !strings.Contains(out, "\n60\n") {
		t.Fatalf("reading back (%s):\n%s", st.Reason, out)
	}
	out, st = do(t, env, map[string]any{"action": "input", "id": id, "keys": []string{"Ctrl-D"}, "timeout_ms": 20000})
	if st.Reason != "exit" || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("Ctrl-D should end node with code 0 (%+v):\n%s", st, out)
	}
}

// A y/N question that bash asks only on a terminal is answered.
func TestAnswerAQuestion(t *testing.T) {
	t.Parallel()
	env := session(t)
	id := startPTY(t, env, `read -r -p "Continue? [y/N] " a; echo "answer=$a"`, nil)
	out, st := do(t, env, map[string]any{"action": "wait", "id": id, "pattern": `\[y/N\] $`, "timeout_ms": 20000})
	if st.Reason != "pattern" || !strings.HasSuffix(out, "Continue? [y/N] ") {
		t.Fatalf("no question (%s):\n%q", st.Reason, out)
	}
	out, st = do(t, env, map[string]any{"action": "input", "id": id, "text": "y\n", "timeout_ms": 20000})
	if st.Reason != "exit" || !strings.Contains(out, "Continue? [y/N] y\nanswer=y") {
		t.Fatalf("answer (%s):\n%s", st.Reason, out)
	}
}

// less, a full-screen program, reads as its screen and quits with q.
func TestFullScreenProgram(t *testing.T) {
	t.Parallel()
	testpeer.Command(t, "less", "install less (scripts/test does)")
	env := session(t)
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		b.WriteString("row " + strconv.Itoa(i) + "\n")
	}
	if err := os.WriteFile(filepath.Join(env.Dir, "rows.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	id := startPTY(t, env, "less rows.txt", map[string]any{"cols": 40, "rows": 10})
	out, st := do(t, env, map[string]any{"action": "wait", "id": id, "pattern": `row 9\n`, "timeout_ms": 20000})
	if st.Reason != "pattern" || !strings.Contains(out, "--- screen (40x10, a full-screen program) ---\nrow 1\nrow 2\n") || strings.Contains(out, "row 10\n") {
		t.Fatalf("first page (%s):\n%s", st.Reason, out)
	}
	out, st = do(t, env, map[string]any{"action": "input", "id": id, "keys": []string{"PageDown"}, "pattern": `row 18\n`, "timeout_ms": 20000})
	if st.Reason != "pattern" || !strings.Contains(out, "\nrow 10\n") || strings.Contains(out, "\nrow 1\n") {
		t.Fatalf("second page (%s):\n%s", st.Reason, out)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape codes in the screen:\n%q", out)
	}
	out, st = do(t, env, map[string]any{"action": "input", "id": id, "text": "q", "timeout_ms": 20000})
	if st.Reason != "exit" || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("q should quit less (%+v):\n%s", st, out)
	}
}

// A progress bar drawn with carriage returns reads as its last state; the
// raw bytes are there on request.
func TestProgressBarCollapses(t *testing.T) {
	t.Parallel()
	env := session(t)
	// It prints only after the input, so the start's result cannot have
	// read it.
	id := startPTY(t, env, `read -r _; for i in 10 20 30 40 50 60 70 80 90 100; do printf '\rfetching %s%%' $i; done; echo; echo done`, nil)
	out, st := do(t, env, map[string]any{"action": "input", "id": id, "text": "go\n", "timeout_ms": 20000})
	if st.Reason != "exit" || !strings.Contains(out, "\nfetching 100%\ndone\n") || strings.Contains(out, "fetching 90%") {
		t.Fatalf("collapsed (%s):\n%q", st.Reason, out)
	}
	// Another, read raw; it prints only after the input, so the start's
	// result cannot have read it.
	id = startPTY(t, env, `read -r _; printf '\rA 1\rA 2\n'`, nil)
	out, _ = do(t, env, map[string]any{"action": "input", "id": id, "text": "go\n", "raw": true, "timeout_ms": 20000})
	if !strings.Contains(out, "\rA 1\rA 2\r") {
		t.Fatalf("raw bytes:\n%q", out)
	}
}

// Without a terminal, input goes to stdin: cat echoes it, Ctrl-D ends it.
func TestInputToAPipe(t *testing.T) {
	t.Parallel()
	env := session(t)
	id, _ := startBg(t, env, "cat")
	out, st := do(t, env, map[string]any{"action": "input", "id": id, "text": "hello there\n", "pattern": "there", "timeout_ms": 20000})
	if st.Reason != "pattern" || !strings.Contains(out, "--- stdout: 1 new line ---\nhello there") {
		t.Fatalf("echo (%s):\n%s", st.Reason, out)
	}
	out, st = do(t, env, map[string]any{"action": "input", "id": id, "keys": []string{"Ctrl-D"}, "timeout_ms": 20000})
	if st.Reason != "exit" || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("Ctrl-D should close cat's input (%+v):\n%s", st, out)
	}
}

// A process that reads nothing does not hold the call: the write times
// out and says so.
func TestInputToAProcessThatDoesNotRead(t *testing.T) {
	t.Parallel()
	env := session(t)
	id := startPTY(t, env, "stty -icanon; sleep 300", nil) // no line limit: the buffer fills
	chunk := strings.Repeat("x", MaxInputBytes)
	var r tool.Result
	start := time.Now()
	for range 3 {
		if r = call(t, ProcessTool(), env, map[string]any{"action": "input", "id": id, "text": chunk}); r.IsError {
			break
		}
	}
	if !r.IsError || !strings.Contains(text(r), "did not take the rest within 2s") {
		t.Fatalf("expected a timeout, got:\n%s", text(r))
	}
	if took := time.Since(start); took > 3*InputTimeout+5*time.Second {
		t.Errorf("the input calls took %s", took)
	}
	r = call(t, ProcessTool(), env, map[string]any{"action": "input", "id": id, "text": strings.Repeat("x", MaxInputBytes+1)})
	if !r.IsError || !strings.Contains(text(r), "more than the 64 KiB") {
		t.Fatalf("oversized input:\n%s", text(r))
	}
}

// Bad input is refused with a message that says what to do.
func TestInputRefusals(t *testing.T) {
	t.Parallel()
	env := session(t)
	id := startPTY(t, env, "sleep 300", nil)
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"action": "input", "id": id}, "input needs text or keys"},
		{map[string]any{"action": "input", "id": id, "keys": []string{"Hyper-Q"}}, `unknown key "Hyper-Q"`},
		{map[string]any{"action": "wait", "id": id, "pattern": "("}, "not a valid regular expression"},
		{map[string]any{"action": "start", "command": "true", "pty": true, "cols": 5}, "out of range"},
	} {
		if r := call(t, ProcessTool(), env, c.in); !r.IsError || !strings.Contains(text(r), c.want) {
			t.Errorf("%v: want an error containing %q, got:\n%s", c.in, c.want, text(r))
		}
	}
}

// Ctrl-C in a terminal interrupts the foreground program.
func TestCtrlCInterrupts(t *testing.T) {
	t.Parallel()
	env := session(t)
	id := startPTY(t, env, `trap 'echo interrupted; exit 3' INT; echo ready; while :; do sleep 0.05; done`, nil)
	if out, st := do(t, env, map[string]any{"action": "wait", "id": id, "pattern": "ready", "timeout_ms": 20000}); st.Reason != "pattern" {
		t.Fatalf("never ready:\n%s", out)
	}
	out, st := do(t, env, map[string]any{"action": "input", "id": id, "keys": []string{"Ctrl-C"}, "timeout_ms": 20000})
	if st.Reason != "exit" || !strings.Contains(out, "interrupted") {
		t.Fatalf("Ctrl-C (%+v):\n%s", st, out)
	}
}

// Closing the session kills a terminal's process group: nothing it
// started survives.
func TestSessionEndKillsTerminalGroup(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	id := startPTY(t, env, `sleep 300 & echo pid:$!; echo pid:$$; wait`, nil)
	out, _ := do(t, env, map[string]any{"action": "wait", "id": id, "pattern": `(?s)pid:\d+.*pid:\d+`, "timeout_ms": 20000})
	ps := pids(t, out)
	if len(ps) != 2 {
		t.Fatalf("pids:\n%s", out)
	}
	env.Close()
	requireDead(t, ps)
}

// A wait for a prompt returns as soon as the prompt appears, not on a
// polling tick: the prompt carries the time it was printed ($EPOCHREALTIME
// is read by bash itself, in the same write).
func TestWaitReturnsPromptly(t *testing.T) {
	// Not parallel: the package's other tests would share its cores.
	env := session(t)
	id := startPTY(t, env, `read -r _; printf '%s ready> ' "$EPOCHREALTIME"; sleep 300`, nil)
	out, st := do(t, env, map[string]any{"action": "input", "id": id, "text": "go\n", "pattern": `ready> $`, "timeout_ms": 20000})
	returned := time.Now()
	if st.Reason != "pattern" {
		t.Fatalf("reason %q:\n%s", st.Reason, out)
	}
	m := regexp.MustCompile(`(\d+)\.(\d{6}) ready> $`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no stamped prompt:\n%s", out)
	}
	sec, _ := strconv.ParseInt(m[1], 10, 64)
	usec, _ := strconv.ParseInt(m[2], 10, 64)
	if lag := returned.Sub(time.Unix(sec, usec*1000)); lag > promptLag {
		t.Errorf("the wait returned %s after the prompt was printed, want under %s", lag, promptLag)
	} else {
		t.Logf("lag %s", lag)
	}
}

// A quiet wait does not return before the output has been quiet for the
// period: the process stamps every line with the time it printed it.
func TestQuietWaitHoldsThePeriod(t *testing.T) {
	// Not parallel: the package's other tests would share its cores.
	env := session(t)
	id, _ := startBg(t, env, `read -r _; for i in 1 2 3; do date +%s%N; sleep 0.1; done; sleep 300`)
	const quiet = 400 * time.Millisecond
	start := time.Now()
	out, st := do(t, env, map[string]any{"action": "input", "id": id, "text": "go\n", "quiet_ms": quiet.Milliseconds(), "timeout_ms": 20000})
	returned := time.Now()
	if st.Reason != "quiet" {
		t.Fatalf("quiet (%s):\n%s", st.Reason, out)
	}
	if took := returned.Sub(start); took < quiet {
		t.Errorf("returned after %s, before the quiet period of %s", took, quiet)
	}
	// On a loaded machine the first line may come later than the quiet
	// period; then there is no line to measure from.
	stamps := regexp.MustCompile(`(?m)^\d{19}$`).FindAllString(out, -1)
	if len(stamps) == 0 {
		return
	}
	ns, _ := strconv.ParseInt(stamps[len(stamps)-1], 10, 64)
	if quietFor := returned.Sub(time.Unix(0, ns)); quietFor < quiet {
		t.Errorf("returned %s after the last line, before the quiet period of %s:\n%s", quietFor, quiet, out)
	}
}

// Key names come from the model: any string is either a key or an error
// that lists the names, never a panic or an empty send.
func FuzzKeyNames(f *testing.F) {
	for _, k := range []string{"Enter", "ctrl-c", "Ctrl+D", "^Z", "ArrowUp", "Ctrl-\\", "Ctrl-", "", "Hyper-Q", "ctrlctrlc"} {
		f.Add(k, true, false)
	}
	f.Fuzz(func(t *testing.T, name string, tty, app bool) {
		op, err := encodeKey(name, tty, app)
		if err != nil {
			if !strings.Contains(err.Error(), "Ctrl-A to Ctrl-Z") {
				t.Fatalf("error without the key names: %v", err)
			}
			return
		}
		if len(op.data) == 0 && !op.interrupt && !op.eof {
			t.Fatalf("%q encodes to nothing", name)
		}
	})
}
