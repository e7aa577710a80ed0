// Package provider is the SDK-neutral side of talking to language models:
// the conversation's form ([Message] of [Block]s: text, thinking,
// tool_use, tool_result), a [Request] and its streamed [Response], the
// [Client] every adapter implements, "provider/model" ids, and the facts
// about providers that do not depend on an SDK: their APIs and their key
// and base-URL variables ([Providers]). What is known of each model
// (window, prices) is package provider/facts, which the agent's side
// imports.
//
// Retries are here too ([WithRetries]): backoff that honours retry-after,
// decided from a [StatusError], which each adapter makes of its SDK's
// error, or from a network failure; and the stall bound of a stream
// ([IdleTimeout], a transport any adapter's HTTP client can use). The adapters live beside this package, one per SDK
// (provider/anthropic, provider/openai, provider/gemini, each the only
// importer of its SDK), and provider/connect opens the right one for a
// model id. This
// package imports no SDK, so a program that only stores or shows
// conversations (a transcript, a printer) links none.
//
// The package does no printing and keeps no global state.
package provider
