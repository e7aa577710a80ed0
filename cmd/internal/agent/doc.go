// Package agent is the command line of indusr-agent, the agent's program:
// indusr's command line (package cli) with -p run here, one prompt taken
// to its answer by the conductor, with models opened through
// provider/connect, and the run printed in the output formats of -p:
// text (the final answer), json (one result object) and stream-json (each
// message as it happens, in Claude Code's shapes). The conductor only
// reports typed events; this package prints them. With --input-format
// stream-json the prompts come from an app instead, as JSON lines over
// one long session (the Claude Agent SDK's protocol, package
// streamhost), printed by the same printer.
//
// It is the one front end that links the model SDKs; indusr execs
// indusr-agent for -p, so indusr's own commands never load them.
package agent
