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
var bgActions = []string{"start", "poll", "stop", "list"}

var bgVerbs = shell.Verbs{Tool: "bg-process", Output: "poll", Stop: "stop"}

type bgInput struct {
	Action  string `json:"action" jsonschema:"start, poll, stop or list."`
	ID      string `json:"id,omitempty" jsonschema:"The process id start returned (poll, stop)."`
	Command string `json:"command,omitempty" jsonschema:"The shell command to run in the background (start)."`
	Filter  string `json:"filter,omitempty" jsonschema:"poll: only show new lines matching this regular expression; the others are skipped."`
	YieldMS int    `json:"yield_ms,omitempty" jsonschema:"start: wait this many milliseconds for the command to finish before returning (default 0, at most 600000)."`
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
		Description: "Keep a command running in the background while you work: a dev server, a file watcher, a long test run. " +
			"action=start with command launches it and returns an id (yield_ms waits that long first, and returns the output if it already finished); " +
			"action=poll with id returns only the lines printed since the last poll, stdout and stderr apart, optionally filtered by a regular expression; " +
			"action=stop with id stops it and its children (SIGTERM, then SIGKILL after 3 s); action=list shows id, state, exit code, age and command. " +
			"The last 2000 lines of each stream stay in memory and everything goes to capture files under .indusvx/bg/. Processes end with the session.",
	}, func(ctx context.Context, in bgInput, env *tool.Env) tool.Result {
		e := shell.EngineOf(env)
		switch in.Action {
		case "start":
			return e.StartAction(ctx, env, in.Command, time.Duration(in.YieldMS)*time.Millisecond, bgVerbs)
		case "poll":
			return e.OutputAction(in.ID, in.Filter)
		case "stop":
			return e.StopAction(in.ID)
		case "list":
			return e.ListAction()
		}
		return tool.Errorf("unknown action %q: use start, poll, stop or list", in.Action)
	}, tool.WithSchema(func(s *jsonschema.Schema) {
		tool.SetEnum(s, "action", bgActions...)
		tool.SetRange(s, "yield_ms", 0, float64(shell.MaxWait.Milliseconds()))
	})))
})
