package cards

import (
	"sync"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell"
)

// bgActions are the bg-process actions in their documented order.
var bgActions = []string{"start", "poll", "input", "wait", "stop", "list"}

var bgVerbs = shell.Verbs{Tool: "bg-process", Output: "poll", Stop: "stop", Input: "input"}

// BgProcess returns the bg-process card: background processes over the
// same engine as the process tool, so both list the same processes within
// a session, and the session's end stops them. It is the process tool in
// the card's words: poll reads, stop stops, and wait takes no yield_ms.
func BgProcess() tool.Tool { return bgProcessOnce() }

var bgProcessOnce = sync.OnceValue(func() tool.Tool {
	return shell.NewProcessTool(shell.ProcessSurface{
		Spec: tool.Spec{
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
		},
		Verbs:   bgVerbs,
		Actions: bgActions,
		Docs: map[string]string{
			"action":   "start, poll, input, wait, stop or list.",
			"id":       "The process id start returned (poll, input, wait, stop).",
			"pty":      "start: run it in a pseudo-terminal (REPLs, y/N prompts, full-screen programs).",
			"keys":     "input: keys to press after the text: Enter, Tab, Esc, Backspace, Up, Down, Left, Right, Home, End, PageUp, PageDown, Delete, Ctrl-A to Ctrl-Z.",
			"pattern":  "input, wait: return once the new output matches this regular expression, such as a prompt ('>>> $').",
			"quiet_ms": "input, wait: return once nothing was printed for this many milliseconds.",
			"raw":      "poll, input, wait of a process in a terminal: the bytes it wrote instead of the text the terminal shows.",
			"filter":   "poll, input, wait: only show new lines matching this regular expression; the others are skipped.",
			"yield_ms": "start: wait this many milliseconds for the command to finish before returning (default 0, at most 600000).",
		},
	})
})
