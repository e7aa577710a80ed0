// Package streamhost runs indusr as the executable of an app built on
// the Claude Agent SDK: --input-format stream-json, where standard input
// carries the app's user messages and control requests as JSON lines and
// standard output carries the run's messages (in package agent's
// printer's shapes) and indusr's own control requests. One process holds
// one conversation over many turns; the end of the input ends it after
// the last turn's result.
//
// The app's initialize shapes the session (its system prompt, the skills
// it allows, its hook callbacks, its in-process MCP servers, a schema for
// the final answer); its later requests interrupt a turn or change the
// permission mode, the model or the thinking budget. indusr in turn asks
// the app about calls that need permission (can_use_tool), runs its hooks
// (hook_callback, mapped onto the addon events as Claude Code hooks are)
// and calls the tools of its MCP servers (mcp_message), each grafted as
// mcp__SERVER__TOOL.
package streamhost
