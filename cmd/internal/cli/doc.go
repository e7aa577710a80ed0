// Package cli is the indusr command line: a declarative flag table, the
// subcommands (tools, call, rewind, mcp status, mcp ledger, version) and the
// boot wiring that turns flags into a provisioned deck with the MCP tools
// grafted; --session keeps a session's reads and checklist between runs.
// cmd/indusr and cmd/indusagir are thin mains over [Main], which
// keeps the whole CLI testable in-process.
//
// Exit status: 0 success, 1 a tool reported an error or the command failed
// (including an interrupt), 2 a usage error.
package cli
