// Package input is the prompt box of the terminal UI, a component in the
// manner of the bubbles library: a value with Update and View that the
// program embeds and feeds its messages. Text may span lines (Ctrl-J,
// Shift-Enter, Alt-Enter or a trailing backslash add one; Enter sends).
// Up and Down at the edges walk the workspace's history, kept in
// .indusvx/history.jsonl through package workspace (bounded, replaced
// atomically under a lock), and Ctrl-R searches it backwards. A large
// paste shows as one marker line and is expanded in what is sent. A word
// starting with @ completes workspace files (the ignore-aware walk of
// internal/walk) and MCP resources as @server:uri, whose text is joined to
// the prompt when it is sent; a first word starting with / completes the
// slash commands the program lists.
//
// The program reads SubmitMsg for each prompt sent, routes Esc, Enter, Up
// and Down to the input first while Capturing is true, and calls SetWidth
// on a resize. The input draws no frame or status; that is the program's.
package input
