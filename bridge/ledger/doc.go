// Package ledger is the event-sourced enrollment ledger of grafted MCP tools.
//
// Enrollment is an append-only log of enroll and retire events; the live set
// of tools is the fold of that log by one pure reducer, [Reduce], so "what is
// live now" never depends on the order in which callers happened to mutate
// something. A [Ledger] is an immutable value: every transition returns a new
// Ledger and leaves the receiver untouched, and [FromLog] rebuilds the same
// value from a persisted log. [File] keeps the log on disk as JSON lines,
// synced per batch, and tolerates a torn last line.
//
// Keys are content addressed by default: "bk_" and 32 hex digits of SHA-256
// over the canonical JSON of {"name": qualified, "schema": schema}, so the
// same tool enrolled twice is one entry and a changed schema is a new key.
// [Canonical] sorts object keys by UTF-16 code units and prints numbers the
// way JavaScript does, so a key is the same whatever language computes it;
// it keeps null members, which are meaningful in a JSON Schema
// ("default": null).
package ledger
