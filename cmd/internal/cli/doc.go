// Package cli is the indusr command line: a declarative flag table, the
// subcommands below, and the boot wiring that turns flags into a
// provisioned deck with the MCP tools grafted; --session keeps a session's
// reads and checklist between runs, and -p gives the agent a prompt.
// cmd/indusr and cmd/indusagir are thin mains over [Main], which keeps the
// whole CLI testable in-process. The agent is not here: -p is run by the
// program's [Agent] (indusr-agent's, through [MainWith]), and in indusr
// by an exec of indusr-agent, so this package links no model SDK. So is
// indusr with no command in a terminal: the program's Interactive agent
// (indusr-agent's terminal UI) or, in indusr, the same exec; outside a
// terminal it prints the help.
//
// The subcommands (a test keeps this list equal to the command tree):
//
//   - indusr tools: the tools of the session
//   - indusr call: call one tool and print its result
//   - indusr rewind, indusr rewind list, indusr rewind gc: undo the file
//     changes of write and edit, list the checkpoints, prune old ones
//   - indusr version
//   - indusr mcp status, indusr mcp ledger, indusr mcp trust: mount the MCP
//     servers and show their health, print the enrollment ledger, approve
//     the workspace's own MCP config
//   - indusr serve: the deck as an MCP server over stdio or HTTP
//   - indusr addons list, indusr addons check, indusr addons run: the
//     workspace's addons
//   - indusr hooks list, indusr hooks trust: the workspace's command hooks
//     and their approval
//   - indusr lsp status: the configured language servers
//   - indusr sandbox check: what the sandbox enforces on this kernel
//   - indusr index build, indusr index status, indusr index drop: grep's
//     search index
//   - indusr transcripts: the workspace's conversations, for --resume
//   - indusr skills list, indusr skills check: the Agent Skills found for
//     the workspace, and their problems against the format's rules
//   - indusr crew, indusr crew run: a crew of subagents works through a
//     plan's tasks, each teammate in a git worktree of its own (run by
//     the program's Crew, in indusr an exec of indusr-agent, as -p)
//   - indusr models: the models the agent knows, with windows and prices
//     (run by the program's [Models], in indusr by an exec of
//     indusr-agent, which holds the model catalog)
//
// Exit status: 0 success, 1 a tool reported an error or the command failed
// (including an interrupt), 2 a usage error.
package cli
