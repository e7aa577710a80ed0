package shell

import (
	"context"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
)

// processActions are the actions of the process tool, in the order the
// description gives them.
var processActions = []string{"start", "output", "wait", "kill", "list"}

var processVerbs = Verbs{Tool: "process", Output: "output", Stop: "kill"}

type processInput struct {
	Action  string `json:"action" jsonschema:"start, output, wait, kill or list."`
	ID      string `json:"id,omitempty" jsonschema:"The process id start returned (output, wait, kill)."`
	Command string `json:"command,omitempty" jsonschema:"The shell command to run in the background (start)."`
	Filter  string `json:"filter,omitempty" jsonschema:"Only show new output lines matching this regular expression (output, wait); lines that do not match are skipped, not kept for later."`
	YieldMS int    `json:"yield_ms,omitempty" jsonschema:"start: wait this many milliseconds for the command to finish before returning (default 0). wait: the most to wait (default 30000). At most 600000."`
}

// ProcessTool returns the process tool, which runs commands in the
// background and reads, waits for, stops and lists them.
func ProcessTool() tool.Tool { return processToolOnce() }

// The tool keeps no state of its own (what a session shares lives in its
// tool.Env), so one value, with its schema compiled once, serves every deck.
var processToolOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "process",
		Label: "Manage background processes",
		Description: "Run shell commands in the background and manage them: dev servers, watchers, long builds. " +
			"action=start with command starts one (bash -c in the working directory, its own process group, stdin empty) and returns its id; " +
			"with yield_ms it first waits that long and, if the command already finished, returns its output and exit code. " +
			"action=output with id returns only the output that is new since the last read (stdout and stderr separately), optionally just the lines matching filter. " +
			"action=wait with id blocks until the process ends or yield_ms passes (default 30000), then reports like output. " +
			"action=kill with id stops the process and everything it started (SIGTERM, then SIGKILL after 3 s). " +
			"action=list shows every process: id, state, exit code, age, command. " +
			"Memory keeps the last 2000 lines of each stream; the full output is in capture files under .indusvx/bg/ whose paths the output notices give. " +
			"Processes are stopped when the session ends.",
	}, func(ctx context.Context, in processInput, env *tool.Env) tool.Result {
		e := EngineOf(env)
		yield := time.Duration(in.YieldMS) * time.Millisecond
		switch in.Action {
		case "start":
			return e.StartAction(ctx, env, in.Command, yield, processVerbs)
		case "output":
			return e.OutputAction(in.ID, in.Filter)
		case "wait":
			return e.WaitAction(ctx, in.ID, in.Filter, yield)
		case "kill":
			return e.StopAction(in.ID)
		case "list":
			return e.ListAction()
		}
		return tool.Errorf("unknown action %q: use start, output, wait, kill or list", in.Action)
	}, processSchema))
})

// processSchema limits action to processActions and bounds yield_ms by
// MaxWait.
var processSchema = tool.WithSchema(func(s *jsonschema.Schema) {
	tool.SetEnum(s, "action", processActions...)
	tool.SetRange(s, "yield_ms", 0, float64(MaxWait.Milliseconds()))
})
