// Package conductor is the agent loop: it drives a conversation through a
// model (package provider) and the session's deck (package session),
// firing every addon event at its point, and keeps the conversation in a
// transcript (package transcript). The model's tool uses run through the
// deck by package toolrun. The conductor opens models only through the
// [Options.Open] function its program passes in (connect.Opener opens the
// adapters of provider/anthropic and provider/openai), so it links no
// model SDK itself.
//
// A [Conductor] owns one session and one conversation. [Conductor.Run]
// takes one user prompt to its answer: input:submit (a gate), then turns
// of turn:start, context:build, chat:params, the model's stream,
// chat:message, the tool calls through the session's Box (tool:before and
// tool:after fire there) and turn:end, compacting near the model's context
// window (compact:before, compact:build) and once more when the provider
// refuses a call as over it. The size of the next call is the provider's
// count of the last one plus an estimate of what came since; it is kept
// in the transcript, so a resumed conversation knows it. The turn:end of a turn without
// tool calls says the agent stops there; a message sent then (a Stop
// hook's reason, an addon's send_message) is answered before Run returns.
// Everything the prompt's tools change is one checkpoint node, so a
// rewind undoes the prompt as a whole.
//
// Skills (package skills) found for the workspace are listed to the
// model at the end of the briefing, within a share of the context
// window, and loaded through the Skill tool, which runs through the Box
// like any tool; a prompt "/id args", or one that mentions "$id", is
// expanded into the skill's instructions after the input:submit gate.
//
// The library prints nothing. Permission modes and allow/deny rules in
// Claude Code's syntax decide which calls run; plan mode keeps the agent
// to read-only tools until its plan is approved. A call the rules leave
// open runs when a tool:before gate allows it (a PreToolUse hook's
// allow), else when the user allows it through [Options.Ask]; with no Ask
// it is refused with a result that says how to allow it.
//
// # Callers
//
// The -p front end, a terminal UI and subagents drive the same API:
//
//   - Turns: [Open] a conductor, call [Conductor.Begin] once, then
//     [Conductor.Run] per prompt on a goroutine of the caller's; cancel
//     its context to interrupt (the turn's tool processes are killed).
//     [Conductor.Compact], [Conductor.SetModel], [Conductor.SetThinking]
//     and [Conductor.SendMessage] are the commands a UI offers between
//     or during runs: during one, Compact (and a second Run) fail with
//     [ErrBusy], the others take effect at the next model call, and
//     [Conductor.Messages] shows the conversation as of the last turn.
//   - Events: [Options.OnEvent] receives typed [Event] values on Run's
//     goroutine as they happen: [Delta] (text, thinking and the start of
//     each tool use, streamed), [AssistantMessage] (the whole message,
//     with the tool uses about to run), [ToolResults] (their results, in
//     order), [TurnStarted]/[TurnEnded], [Compacted] and [Notice]. A UI
//     forwards them to its own loop (a Bubble Tea program's Send) and
//     renders from there; the callback must not block for long.
//   - Questions: [Options.Ask] is called, on Run's goroutine, for a call
//     that needs the user's permission or that a tool:before gate asks
//     about (a PreToolUse hook's ask); a UI shows the [Question] and
//     blocks until the user answers. -p leaves it nil.
//   - Subagents: [Conductor.Child] opens a conversation of its own with
//     another deck (an agent profile's tool list or deck.Profile), its
//     own briefing ([Options.AppendSystem] carries the profile's prompt)
//     and events, sharing the parent's workspace, model client and
//     permissions. A tool that runs one calls Run on the child under its
//     own call's context, so the child's changes join the parent prompt's
//     checkpoint node and a cancelled parent cancels the child.
//
// # Subagents
//
// Unless the host wires a delegate runner of its own (deck.Framework's
// Delegate, such as INDUSR_DELEGATE's command), the task card runs in
// process: each call is a child conversation of an agent profile (package
// agents: .indus/agents, .claude/agents, and [Options.Agents] given in
// code, with [GeneralPurpose] first). The child gets the profile's prompt
// after its briefing, its model (else the parent's), only the tools its
// profile names (by our name, Claude Code's, or a glob; never the task
// card, and never a tool the parent lacks), its own files-read state and
// checklist, the parent's approvals, addons, sandbox and rules, the
// parent's permission mode or the profile's when stricter, and a turn
// limit ([DefaultSubagentTurns]). The task calls of one message run
// together, at most [Options.ParallelSubagents] at once; writes of two
// subagents to one file keep the read-before-edit rule, since each has
// its own files-read state. The result is the child's answer, the files
// it changed and its transcript id; the child's transcript header names
// the parent's conversation and call. subagent:start and subagent:stop
// fire in the parent's session (SubagentStart and SubagentStop hooks),
// the child's turn events carry its agent name, and its events reach
// [Options.OnEvent] as [SubagentEvent] values marked with the parent's
// tool use id, between [SubagentStarted] and [SubagentStopped];
// [Result.Subagents] counts them.
package conductor
