package shell

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
)

// processActions are the actions of the process tool, in the order the
// description gives them.
var processActions = []string{"start", "input", "wait", "output", "kill", "list"}

var processVerbs = Verbs{Tool: "process", Output: "output", Stop: "kill", Input: "input"}

// processInput is the input of every tool over the background processes
// (see ProcessSurface); its descriptions are the process tool's.
type processInput struct {
	Action    string   `json:"action" jsonschema:"start, input, wait, output, kill or list."`
	ID        string   `json:"id,omitempty" jsonschema:"The process id start returned (input, wait, output, kill)."`
	Command   string   `json:"command,omitempty" jsonschema:"The shell command to run in the background (start)."`
	PTY       bool     `json:"pty,omitempty" jsonschema:"start: run the command in a pseudo-terminal, for programs that prompt or draw only on a terminal (REPLs such as python3 -i or node, y/N questions, less, top)."`
	Cols      int      `json:"cols,omitempty" jsonschema:"start with pty: the terminal's width (default 120)."`
	Rows      int      `json:"rows,omitempty" jsonschema:"start with pty: the terminal's height (default 40)."`
	Text      string   `json:"text,omitempty" jsonschema:"input: text to type; in a terminal a newline is sent as Enter."`
	Keys      []string `json:"keys,omitempty" jsonschema:"input: keys to press after the text, by name: Enter, Tab, Esc, Backspace, Up, Down, Left, Right, Home, End, PageUp, PageDown, Delete, Ctrl-A to Ctrl-Z (Ctrl-C interrupts, Ctrl-D ends input)."`
	Pattern   string   `json:"pattern,omitempty" jsonschema:"input, wait: return once the new output matches this regular expression (Go RE2), such as a prompt: '>>> $' or '\\$ $' ($ is the end of the output, where the cursor is)."`
	QuietMS   int      `json:"quiet_ms,omitempty" jsonschema:"input, wait: return once the process has printed nothing for this many milliseconds."`
	TimeoutMS int      `json:"timeout_ms,omitempty" jsonschema:"input, wait: the most to wait (default 30000, at most 600000)."`
	Raw       bool     `json:"raw,omitempty" jsonschema:"input, wait, output of a process in a terminal: return the bytes it wrote, escape sequences included, instead of the text the terminal shows."`
	Filter    string   `json:"filter,omitempty" jsonschema:"Only show new output lines matching this regular expression (input, wait, output); lines that do not match are skipped, not kept for later."`
	YieldMS   int      `json:"yield_ms,omitempty" jsonschema:"start: wait this many milliseconds for the command to finish before returning (default 0). wait: the same as timeout_ms."`
}

// ProcessSurface is one tool over the session's background processes:
// the process tool, or another entry of the catalog over the same engine
// (the bg-process card). Surfaces differ only in their words: name,
// description, the names of the actions that read and stop, and how the
// input's properties are explained.
type ProcessSurface struct {
	Spec    tool.Spec // name, label and description
	Verbs   Verbs     // Tool is Spec.Name; Output and Stop name those actions
	Actions []string  // every action, in the order the description gives them
	// Docs replaces the descriptions of input properties, by JSON name.
	Docs map[string]string
	// WaitYields lets wait take yield_ms as its bound when timeout_ms is
	// not given.
	WaitYields bool
}

// NewProcessTool returns the tool s describes. The tool keeps no state of
// its own (the engine lives in the session's tool.Env), so one value
// serves every deck.
func NewProcessTool(s ProcessSurface) tool.Tool {
	return tool.Must(tool.New(s.Spec, func(ctx context.Context, in processInput, env *tool.Env) tool.Result {
		e := EngineOf(env)
		ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
		timeout := ms(in.TimeoutMS)
		if timeout == 0 && s.WaitYields {
			timeout = ms(in.YieldMS)
		}
		wait := WaitRequest{Filter: in.Filter, Raw: in.Raw, Until: Until{Pattern: in.Pattern, Quiet: ms(in.QuietMS), Timeout: timeout}}
		switch in.Action {
		case "start":
			o := StartOptions{Terminal: in.PTY, Cols: in.Cols, Rows: in.Rows}
			return e.StartActionWith(ctx, env, in.Command, o, ms(in.YieldMS), s.Verbs)
		case "input":
			return e.InputAction(ctx, in.ID, InputRequest{Text: in.Text, Keys: in.Keys, Wait: wait})
		case "wait":
			return e.WaitUntilAction(ctx, in.ID, wait)
		case s.Verbs.Output:
			return e.OutputActionRaw(in.ID, in.Filter, in.Raw)
		case s.Verbs.Stop:
			return e.StopAction(in.ID)
		case "list":
			return e.ListAction()
		}
		return tool.Errorf("unknown action %q: use %s", in.Action, orList(s.Actions))
	}, tool.WithSchema(func(schema *jsonschema.Schema) {
		tool.SetEnum(schema, "action", s.Actions...)
		for _, name := range []string{"yield_ms", "timeout_ms", "quiet_ms"} {
			tool.SetRange(schema, name, 0, float64(MaxWait.Milliseconds()))
		}
		tool.SetRange(schema, "cols", 0, maxCols)
		tool.SetRange(schema, "rows", 0, maxRows)
		for name, doc := range s.Docs {
			tool.Property(schema, name).Description = doc
		}
	})))
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// ProcessTool returns the process tool, which runs commands in the
// background, types into them, and reads, waits for, stops and lists them.
func ProcessTool() tool.Tool { return processToolOnce() }

var processToolOnce = sync.OnceValue(func() tool.Tool {
	return NewProcessTool(ProcessSurface{
		Spec: tool.Spec{
			Name:  "process",
			Label: "Manage background processes",
			Description: "Run shell commands in the background and interact with them: dev servers, watchers, long builds, REPLs, programs that ask questions. " +
				"action=start with command starts one (bash -c in the working directory, its own process group) and returns its id; " +
				"with pty=true it runs in a pseudo-terminal (default 120x40; cols, rows), which REPLs and prompts need; " +
				"with yield_ms it first waits that long and, if the command already finished, returns its output and exit code. " +
				"action=input with id types text and then keys (Enter, Tab, Esc, arrows, Ctrl-C, Ctrl-D, ...) into its terminal or stdin; " +
				"with pattern, quiet_ms or timeout_ms it then waits as wait does, matching only output that follows the input. " +
				"action=wait with id returns the output that is new since the last read once it matches pattern (a prompt such as '>>> $'), " +
				"or nothing was printed for quiet_ms, or the process ended, or timeout_ms passed (default 30000); the result says which. " +
				"action=output with id returns the new output at once. " +
				"Terminal output is the text the terminal shows (cursor moves and redraws applied, a full-screen program as its screen); raw=true gives the bytes. " +
				"Without a terminal, stdout and stderr are shown apart. " +
				"action=kill with id stops the process and everything it started (SIGTERM, then SIGKILL after 3 s). " +
				"action=list shows every process: id, state, exit code, age, command. " +
				"Memory keeps the last 2000 lines of each stream; the full output is in capture files under .indusvx/bg/ whose paths the output notices give. " +
				"Processes are stopped when the session ends.",
		},
		Verbs:      processVerbs,
		Actions:    processActions,
		WaitYields: true,
	})
})
