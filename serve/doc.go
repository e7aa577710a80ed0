// Package serve exposes a deck as an MCP server, over stdio or Streamable
// HTTP, with the official MCP Go SDK.
//
// Every tool of the session options (built-ins and app cards by profile,
// the --tools allow-list, the tools of grafted MCP servers) becomes an MCP
// tool under its wire name. Each MCP session gets a deck session of its own
// (files read, checklist, background processes), opened on its first tool
// call and closed, with everything it started, when the MCP session ends.
// The grafted servers are one fleet per process, shared by every session.
// A server whose tool list is cached is listed from the cache at once and
// started on the first call of one of its tools; the others are mounted in
// the background, their tools announced with
// notifications/tools/list_changed as they arrive, so a slow server never
// delays the first tools/list, and a call of a tool whose server is still
// starting waits for it. The tool list comes from session.Catalog, so a
// server that no client used opens no session.
//
// Both protocol generations are served on every transport: the stateless
// protocol of 2026-07-28 (server/discover, per-request _meta, a
// subscriptions/listen stream for list changes) and the initialize
// handshake of the versions before it. Over HTTP the generation is the
// Mcp-Protocol-Version header's: a stateless request is a whole POST
// served by the SDK's stateless transport, and having no session, the
// stateless clients of one server share one deck session (its processes
// live until the server ends); clients that need their own state use
// the initialize handshake. On every transport the ids a client writes
// (a call's id, a progress token, the id of a listen stream that its
// notifications name) come back exactly as written, whatever their JSON
// type (internal/callids). At the end of stdin a listen stream is
// answered, the calls in flight finish, and the server exits.
//
// Over HTTP the server binds loopback unless a bearer token is set, checks
// Host and Origin against DNS rebinding, bounds request bodies and the
// time to read them, and caps the sessions open at once. A call
// is answered with one JSON body unless [HTTPOptions.EventStreams] asks
// for resumable event streams. JSON bodies go through this package's own
// Streamable HTTP transport, which decodes each request once and hands it
// to the SDK's server (the SDK's transport decodes it four times); event
// streams, with resumption, through the SDK's. Over stdio the transport is
// internal/stdioconn, which answers a bad line with a JSON-RPC error and
// goes on.
//
// Most of what a small call costs is the SDK's, above all its JSON
// decoding, which allocates a fresh 32 KiB buffer several times per
// message, and thread switches as a message passes from goroutine to
// goroutine. [Options.AdaptGC] and [Options.AdaptProcs] shape the runtime
// to the load: while calls come one at a time, a small heap (a young
// process then touches few fresh pages) and one processor (each handoff
// stays on one thread); while calls overlap, more headroom for the
// collector and Go's default processor count. A large tree walk gets every
// processor while it runs. Over stdio, standard input is read through the
// runtime's poller, so that waiting for a message holds no processor.
package serve
