// Package provider talks to language models through their official Go
// SDKs: Anthropic's Messages API (anthropic-sdk-go) and OpenAI's Chat
// Completions API (openai-go), which every OpenAI-compatible server
// speaks (Ollama, vLLM, LM Studio, OpenRouter, llama.cpp's server).
//
// A [Client] streams one model response for a [Request] written in an
// SDK-neutral form ([Message] of [Block]s: text, thinking, tool_use,
// tool_result); [Open] makes one from a "provider/model" id and the usual
// environment variables. Retries with backoff that honour retry-after,
// usage with cache tokens and the cost of a turn are the client's job, so
// every caller gets them. The conversions a program running its own loop
// needs live here too: deck tool specs to tool definitions ([ToolDefs]),
// tool results to tool_result blocks ([ResultBlock]) and running one
// message's tool uses ([RunToolUses]) with a typed [Failure] on each error.
//
// The package does no printing and keeps no global state; the HTTP wire
// is the SDKs' own (no hand-written requests).
package provider
