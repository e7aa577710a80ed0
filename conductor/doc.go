// Package conductor is the agent loop: it drives a conversation through a
// model (package provider) and the session's deck (package session),
// firing every addon event at its point, and keeps the conversation in a
// transcript (package transcript).
//
// A [Conductor] owns one session and one conversation. [Conductor.Run]
// takes one user prompt to its answer: input:submit (a gate), then turns
// of turn:start, context:build, chat:params, the model's stream,
// chat:message, the tool calls through the session's Box (tool:before and
// tool:after fire there) and turn:end, compacting near the model's context
// window (compact:before, compact:build). Everything the prompt's tools
// change is one checkpoint node, so a rewind undoes the prompt as a whole.
//
// The library prints nothing: a caller that shows the run (the -p front
// end, a terminal UI) receives typed [Event] values as they happen, and
// gets a [Result] at the end. Permission modes and allow/deny rules in
// Claude Code's syntax decide which calls run when no one can be asked;
// plan mode keeps the agent to read-only tools until its plan is approved.
package conductor
