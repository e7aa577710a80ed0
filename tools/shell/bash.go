package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell/output"
)

// DefaultTimeout is how long a bash command may run when the call names no
// timeout: two minutes, as in Claude Code, covers a build or a test run.
const DefaultTimeout = 120 * time.Second

// MaxTimeout is the longest timeout a call may ask for (ten minutes);
// anything longer belongs in a background process.
const MaxTimeout = 600 * time.Second

type bashInput struct {
	Command     string `json:"command" jsonschema:"The shell command to run, as you would type it in bash. Pipes, redirections, && and ; work."`
	TimeoutMS   int    `json:"timeout_ms,omitempty" jsonschema:"Stop the command after this many milliseconds (default 120000, at most 600000)."`
	Description string `json:"description,omitempty" jsonschema:"Five to ten words saying what the command does, for the person watching (\"Run the unit tests\")."`
	WorkingDir  string `json:"working_dir,omitempty" jsonschema:"Directory to run in, inside the workspace; relative paths resolve against the working directory. Default: the working directory."`
	// Models trained on Claude Code's Bash tool send run_in_background;
	// it is the process tool's start under bash's name.
	RunInBackground bool `json:"run_in_background,omitempty" jsonschema:"Start the command as a background process and return its id at once, without waiting; read its output with the process tool (action=output id=...) and stop it with action=kill. timeout_ms does not apply."`
}

// BashTool returns the bash tool, which runs one shell command to
// completion and returns its merged output and exit code.
func BashTool() tool.Tool { return bashToolOnce() }

// The tool keeps no state of its own (what a session shares lives in its
// tool.Env), so one value, with its schema compiled once, serves every deck.
var bashToolOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "bash",
		Label: "Run shell command",
		Description: "Run a shell command with bash -c in the working directory (or working_dir, which must be inside the workspace) and return its output and exit code. " +
			"stdout and stderr are merged in the order they were written; stdin is empty (/dev/null), so interactive prompts get end-of-file — pass flags such as --yes instead. " +
			"The environment has INDUSR=1. The command and everything it starts are stopped after timeout_ms (default 120000, max 600000) and when the call is cancelled; " +
			"nothing it starts outlives the call, so run servers and watchers with run_in_background=true (or the process tool), which returns a process id at once. " +
			"Output beyond 30000 characters is cut to its first and last lines, with the full output saved to a log file whose path the result gives; read or grep that file for the rest. " +
			"Prefer the read, grep, find and ls tools over cat, grep, find and ls in the shell.",
	}, runBash, tool.WithSchema(func(s *jsonschema.Schema) {
		tool.SetDefault(s, "timeout_ms", DefaultTimeout.Milliseconds())
		tool.SetRange(s, "timeout_ms", 1, float64(MaxTimeout.Milliseconds()))
	})))
})

func runBash(ctx context.Context, in bashInput, env *tool.Env) tool.Result {
	if strings.TrimSpace(in.Command) == "" {
		return tool.Errorf("command is empty: give the shell command to run")
	}
	dir, err := workingDir(env, in.WorkingDir)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	e := EngineOf(env)
	if in.RunInBackground {
		return e.startIn(ctx, dir, in.Command, StartOptions{}, 0, processVerbs)
	}
	timeout := DefaultTimeout
	if in.TimeoutMS > 0 {
		timeout = min(time.Duration(in.TimeoutMS)*time.Millisecond, MaxTimeout)
	}
	out := &output.Clip{OpenLog: e.logOpener("bash")}
	last := &latest{next: clipSink{out}}
	g, err := e.runForeground(in.Command, dir, last)
	if err != nil {
		return tool.Errorf("could not run the command: %v", err)
	}
	defer e.untrack(g)

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	var why string
wait:
	for {
		select {
		case <-g.done:
			break wait
		case <-tick.C:
			// Progress counts seconds against the timeout; the message is
			// the latest line of output, so a watcher sees what it does.
			elapsed := time.Since(g.started)
			msg := last.text()
			if msg == "" {
				msg = fmt.Sprintf("running for %s", seconds(elapsed.Round(time.Second)))
			}
			tool.ReportProgress(ctx, elapsed.Seconds(), timeout.Seconds(), msg)
		case <-timer.C:
			why = fmt.Sprintf("timed out after %s: the command and every process it started were stopped; raise timeout_ms (at most %d) or run it with the process tool", seconds(timeout), MaxTimeout.Milliseconds())
			g.stop()
			break wait
		case <-ctx.Done():
			why = fmt.Sprintf("cancelled after %s: the command and every process it started were stopped", seconds(time.Since(g.started).Round(10*time.Millisecond)))
			g.stop()
			break wait
		}
	}
	<-g.done // the output is complete once the group is done

	var sb strings.Builder
	text := out.Text()
	if text == "" {
		text = "(no output)"
	}
	sb.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		sb.WriteByte('\n')
	}
	sb.WriteString(out.Note())
	st, stopped, _, _ := g.result()
	isErr := true
	switch {
	case why != "":
		sb.WriteString(why)
	case st.err != nil:
		fmt.Fprintf(&sb, "could not wait for the command: %v", st.err)
	case stopped:
		sb.WriteString("stopped because the session ended")
	case st.signal != "":
		fmt.Fprintf(&sb, "exit code %d (killed by %s)", st.code, st.signal)
	default:
		fmt.Fprintf(&sb, "exit code %d", st.code)
		isErr = st.code != 0
	}
	if p := e.Sandbox(); p != nil && isErr && jail.Refused(text) {
		sb.WriteString("\n" + p.Explain())
	}
	for _, n := range g.sandboxNotes() {
		sb.WriteString("\n" + n)
	}
	return tool.Result{Blocks: []tool.Block{tool.TextBlock(sb.String())}, IsError: isErr}
}

// workingDir resolves the working_dir input: the session directory when
// empty, otherwise a directory that must lie inside a workspace root, also
// after symlinks are followed.
func workingDir(env *tool.Env, wd string) (string, error) {
	if strings.TrimSpace(wd) == "" {
		return env.Dir, nil
	}
	abs, err := env.Resolve(wd)
	if err != nil {
		return "", fmt.Errorf("working_dir: %v", err)
	}
	root, _, err := env.WorkspaceRoot(abs)
	if err != nil {
		return "", fmt.Errorf("working_dir %s is outside the workspace; use a directory inside %s", wd, strings.Join(env.Roots, ", "))
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("working_dir %s does not exist; create it first or choose an existing directory", wd)
		}
		return "", fmt.Errorf("working_dir %s: %v", wd, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("working_dir %s leads outside the workspace through a symlink (to %s); use a directory inside %s", wd, real, root)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("working_dir %s: %v", wd, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("working_dir %s is a file, not a directory", wd)
	}
	return abs, nil
}
