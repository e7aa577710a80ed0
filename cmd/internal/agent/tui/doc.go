// Package tui is the agent's interactive terminal: a Bubble Tea program
// that holds one conversation with the conductor. It shows the
// conductor's events as they come (assistant text rendered as Markdown,
// thinking dimmed and folded, each tool call a line that opens onto its
// result, edits and writes as unified diffs, a running command's latest
// output), puts the conductor's permission questions and plans to the
// user, and offers the conductor's controls as keys and slash commands:
// Shift-Tab switches the permission mode, Esc interrupts a turn, Ctrl-C
// twice quits, /rewind undoes a prompt's file changes.
//
// The program never blocks on the conductor: a prompt runs on a goroutine
// of its own, and the conductor's callbacks (events, questions) reach the
// program as messages. The model (Model) depends on the conductor only
// through the Backend interface, so its tests drive Update and compare
// View with golden screens without a model server.
package tui
