// Package rpc is the Tier-1 addon host: an addon is any program that
// speaks JSON-RPC 2.0, one message per line, on its stdin and stdout, and
// whose manifest.toml has a [process] table naming the command. What it
// declares in answer to initialize (event handlers, tool interceptors,
// commands, tools) is registered on the ordinary addons API, so the host,
// the dispatcher and the chain of package addons run it like any other
// addon; each handler's body is a request to the process. The protocol,
// with an example exchange per method, is docs/addon-protocol.md.
//
// Processes are started on first use. A session needs the declarations
// when it loads, before anything is used, so the loader keeps the last
// answer to initialize in .indusvx/addon-state, keyed by a fingerprint of
// the addon (its manifest, and the size and time of the files at the top
// of its folder and of those its command names). While the fingerprint
// holds, loading starts nothing and the process starts with the first
// event, call or command that concerns it; when it does not (a new or
// changed addon), loading starts the process to ask, and leaves it
// running for its first use. A process whose later answer differs from
// the record is reported, and the record is updated for the next session.
//
// Each process leads its own process group, dies with indusr (parent-death
// signal, the session's process record), runs in its addon's folder with
// only the environment variables its manifest names (each must be on the
// host's allow-list: [DefaultPolicy], widened by INDUSR_ADDON_ENV), and
// writes its stderr to .indusvx/addon-logs/ID.log. A start and its
// initialize are bounded by [DefaultStartTimeout] (an interpreter may be
// slow to start on a busy machine), every later call by the addon's
// timeout; one that gets no answer is cancelled
// ($/cancelRequest) and, when the process does not answer a ping either,
// the process is killed as hung. A process that exits unasked fails the
// calls in flight, is started again on next use after a backoff, and after
// [CrashLimit] crashes within [CrashWindow] is quarantined: not started
// again for [QuarantinePeriod] or until its files change.
//
// Failures follow the fault policy: gates fail closed (the event is
// refused, unless the manifest's on_error or the declaration says
// "allow"), observers, transforms and interceptors fail open; every
// failure is an [addons.Fault] naming the addon, handed to Options.Report.
package rpc
