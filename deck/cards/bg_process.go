package cards

import (
	"context"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell"
)

// bgActions are the bg-process actions in their documented order.
var bgActions = []string{"start", "poll", "input", "wait", "stop", "list"}

var bgVerbs = shell.Verbs{Tool: "bg-process", Output: "poll", Stop: "stop", Input: "input"}

type bgInput struct {
	Action    string   `json:"action" jsonschema:"start, poll, input, wait, stop or list."`
	ID        string   `json:"id,omitempty" jsonschema:"The process id start returned (poll, input, wait, stop)."`
	Command   string   `json:"command,omitempty" jsonschema:"The shell command to run in the background (start)."`
	PTY       bool     `json:"pty,omitempty" jsonschema:"start: run it in a pseudo-terminal (REPLs, y/N prompts, full-screen programs)."`
	Cols      int      `json:"cols,omitempty" jsonschema:"start with pty: the terminal's width (default 120)."`
	Rows      int      `json:"rows,omitempty" jsonschema:"start with pty: the terminal's height (default 40)."`
	Text      string   `json:"text,omitempty" jsonschema:"input: text to type; in a terminal a newline is sent as Enter."`
	Keys      []string `json:"keys,omitempty" jsonschema:"input: keys to press after the text: Enter, Tab, Esc, Backspace, Up, Down, Left, Right, Home, End, PageUp, PageDown, Delete, Ctrl-A to Ctrl-Z."`
	Pattern   string   `json:"pattern,omitempty" jsonschema:"input, wait: return once the new output matches this regular expression, such as a prompt ('>>> $')."`
	QuietMS   int      `json:"quiet_ms,omitempty" jsonschema:"input, wait: return once nothing was printed for this many milliseconds."`
	TimeoutMS int      `json:"timeout_ms,omitempty" jsonschema:"input, wait: the most to wait (default 30000, at most 600000)."`
	Raw       bool     `json:"raw,omitempty" jsonschema:"poll, input, wait of a process in a terminal: the bytes it wrote instead of the text the terminal shows."`
	Filter    string   `json:"filter,omitempty" jsonschema:"poll, input, wait: only show new lines matching this regular expression; the others are skipped."`
	YieldMS   int      `json:"yield_ms,omitempty" jsonschema:"start: wait this many milliseconds for the command to finish before returning (default 0, at most 600000)."`
}

// BgProcess returns the bg-process card: background processes over the
// same engine as the process tool, so both list the same processes within
// a session, and the session's end stops them.
func BgProcess() tool.Tool { return bgProcessOnce() }

// The tool keeps no state of its own (what a session shares lives in its
// tool.Env), so one value, with its schema compiled once, serves every deck.
var bgProcessOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "bg-process",
		Label: "Background processes",
		Description: "Keep a command running in the background while you work: a dev server, a file watcher, a long test run, a REPL. " +
			"action=start with command launches it and returns an id (yield_ms waits that long first, and returns the output if it already finished; pty=true gives it a terminal, which REPLs and prompts need); " +
			"action=poll with id returns only the output printed since the last poll, stdout and stderr apart, optionally filtered by a regular expression; " +
			"action=input with id types text and keys (Enter, Ctrl-C, Ctrl-D, arrows, ...) into it, and with pattern, quiet_ms or timeout_ms then waits; " +
			"action=wait with id returns the new output once it matches pattern (a prompt), nothing was printed for quiet_ms, the process ended, or timeout_ms passed, and says which; " +
			"action=stop with id stops it and its children (SIGTERM, then SIGKILL after 3 s); action=list shows id, state, exit code, age and command. " +
			"A terminal's output is the text it shows (redraws applied); raw=true gives the bytes. " +
			"The last 2000 lines of each stream stay in memory and everything goes to capture files under .indusvx/bg/. Processes end with the session.",
	}, func(ctx context.Context, in bgInput, env *tool.Env) tool.Result {
		e := shell.EngineOf(env)
		ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
		wait := shell.WaitRequest{Filter: in.Filter, Raw: in.Raw, Until: shell.Until{Pattern: in.Pattern, Quiet: ms(in.QuietMS), Timeout: ms(in.TimeoutMS)}}
		switch in.Action {
		case "start":
			o := shell.StartOptions{Terminal: in.PTY, Cols: in.Cols, Rows: in.Rows}
			return e.StartActionWith(ctx, env, in.Command, o, ms(in.YieldMS), bgVerbs)
		case "poll":
			return e.OutputActionRaw(in.ID, in.Filter, in.Raw)
		case "input":
			return e.InputAction(ctx, in.ID, shell.InputRequest{Text: in.Text, Keys: in.Keys, Wait: wait})
		case "wait":
			return e.WaitUntilAction(ctx, in.ID, wait)
		case "stop":
			return e.StopAction(in.ID)
		case "list":
			return e.ListAction()
		}
		return tool.Errorf("unknown action %q: use start, poll, input, wait, stop or list", in.Action)
	}, tool.WithSchema(func(s *jsonschema.Schema) {
		tool.SetEnum(s, "action", bgActions...)
		for _, name := range []string{"yield_ms", "timeout_ms", "quiet_ms"} {
			tool.SetRange(s, name, 0, float64(shell.MaxWait.Milliseconds()))
		}
		tool.SetRange(s, "cols", 0, 400)
		tool.SetRange(s, "rows", 0, 200)
	})))
})
