package conductor

import "github.com/indusagi/induscode/provider"

// Event is something that happened in a run, for a caller to show. The
// set is closed; every type below is one.
type Event interface{ event() }

// Started is the conversation as a run begins: what a UI shows first.
type Started struct {
	SessionID string // the transcript id
	Model     string
	Dir       string
	Tools     []string
	Mode      PermissionMode
	// Skills are the ids of the skills the user can run as /id.
	Skills []string
	// Servers are the MCP servers the session mounted, Agents the
	// subagents its task tool can run, Addons the addons it loaded.
	Servers []ServerState
	Agents  []string
	Addons  []AddonInfo
}

// ServerState is an MCP server of the session and its state as the
// run begins ("connecting", "ready", "exited", "failed", "detached").
type ServerState struct{ Name, State string }

// AddonInfo is an addon of the session: its id and folder.
type AddonInfo struct{ ID, Path string }

// TurnStarted opens turn N of the run (one model call and its tools).
type TurnStarted struct{ N int }

// Delta is a piece of the model's answer as it streams.
type Delta struct{ provider.Delta }

// AssistantMessage is the model's whole message of a turn.
type AssistantMessage struct {
	Message provider.Message
	Usage   provider.Usage
	Cost    float64
	// Model is the model that answered, as the server named it (the
	// name asked for when it named none); Requested is the
	// "provider/model" the call asked for.
	Model     string
	Requested string
	// ID is the server's id of the message; "" when it sent none.
	ID   string
	Stop provider.StopReason
}

// ToolResults is the user message of a turn's tool results, in the order
// of the tool uses.
type ToolResults struct{ Message provider.Message }

// TurnEnded closes turn N.
type TurnEnded struct{ N int }

// Compacted says the conversation now continues from Summary.
type Compacted struct {
	Summary string
	Before  int // messages replaced
}

// Notice is something the user should know that is not part of the
// conversation: a refused input, a plan saved, a model switched.
type Notice struct{ Text string }

// SubagentStarted says the task call ToolUseID started a subagent of
// profile Agent; AgentID is its transcript id ("" when it keeps none).
type SubagentStarted struct {
	ToolUseID, Agent, AgentID string
	Objective                 string
}

// SubagentEvent is an event of a subagent's conversation (its turns,
// messages and tool results), marked with the parent's task call that
// runs it. It comes from that call's goroutine; the conductor hands
// events to Options.OnEvent one at a time.
type SubagentEvent struct {
	ToolUseID, Agent string
	Event            Event
}

// SubagentStopped says the subagent of the task call ToolUseID ended:
// its result, and the files it changed.
type SubagentStopped struct {
	ToolUseID, Agent, AgentID string
	Result                    *Result
	Files                     []string
}

func (Started) event()          {}
func (TurnStarted) event()      {}
func (Delta) event()            {}
func (AssistantMessage) event() {}
func (ToolResults) event()      {}
func (TurnEnded) event()        {}
func (Compacted) event()        {}
func (Notice) event()           {}
func (SubagentStarted) event()  {}
func (SubagentEvent) event()    {}
func (SubagentStopped) event()  {}
