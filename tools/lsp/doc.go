// Package lsp connects the deck to language servers: diagnostics in the
// result of the write or edit that caused them, and a read-only symbols
// tool (definition, references, document and workspace symbols, hover).
//
// A [Manager] belongs to one session. It starts the server configured for
// a file's language on first need (gopls, typescript-language-server and
// pyright-langserver by default, found on PATH), keeps the documents the
// deck writes in sync with it, and stops every server with the session.
// Servers are children like any other the deck starts: their own process
// group, a parent-death signal and a record for the next session's sweep
// (package childproc). A server that is missing, crashes, hangs or floods
// notifications never fails an edit: the result says the diagnostics are
// unavailable and the server is started again on the next need.
//
// JSON-RPC with LSP's Content-Length framing comes from
// github.com/sourcegraph/jsonrpc2, which is small and long maintained. The
// protocol types are the dozen this package uses, written here: the
// complete generated type sets (go.lsp.dev/protocol, gopls's internal
// copy) are either internal to gopls or pull in a logging stack for
// thousands of types we would not touch.
package lsp
