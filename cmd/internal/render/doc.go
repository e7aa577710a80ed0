// Package render shows a tool's result on the command line for a person:
// text as is, JSON indented, and text a tool streams while it runs,
// closed with its call. It knows tools only (package tool); printing an
// agent's run is the agent's program's (cmd/internal/agent).
package render
