// Package bridge grafts the tools of external MCP servers onto a deck.
//
// [mcpconfig.Load] finds server configuration (the .indusvx/mcp.json family and
// a project's .mcp.json); [Mount] connects every server in parallel over
// stdio, SSE or Streamable HTTP with the official MCP Go SDK and returns a
// [Fleet] whose [Fleet.Tools] are ordinary tool.Tool values named
// "<server>__<tool>", ready for deck.Deck.Graft. Enrollment goes through the
// event-sourced ledger of package ledger, optionally persisted as JSON
// lines; the log records changes only (a tool new, changed or gone, a
// server removed from [Options.Configured]), so a command whose servers
// list what they listed before writes nothing. A server that fails
// contributes nothing and shows why in [Fleet.Status]; the others are
// unaffected. A url row without a type is tried as Streamable HTTP, then
// as SSE when the server refuses the POST with 400, 404 or 405.
// [Fleet.Resources] and [Fleet.ReadResource] list and read the servers'
// resources, for a person who names one in a prompt.
//
// The SDK's known traps are handled here: the protocol version is pinned so
// a legacy server that ignores server/discover cannot hang the handshake;
// stdio servers run in their own process group (teardown reaches npx's and
// uvx's children) with stderr kept in a per-server log; stdout lines that
// are not JSON-RPC are logged and dropped instead of ending the session;
// tools/list is paged with a cap; input schemas are normalised to object
// schemas; empty arguments go out as {}, never null; and the SSE stream is
// kept alive past the startup deadline that bounded its connection.
package bridge
