// Package fakemodel is a model server for tests: on 127.0.0.1 it answers
// Anthropic's Messages API (POST /v1/messages), the same API behind
// Amazon Bedrock (AWS's binary event stream, SigV4 or a Bedrock API key)
// and Google Vertex AI (its paths, OAuth tokens from its own token
// endpoint), OpenAI's Chat Completions API (POST /v1/chat/completions)
// and Responses API (POST /v1/responses), and Gemini's API (POST
// /v1beta/models/{model}:streamGenerateContent) with streams written byte
// for byte as the real services write them (event names, a ping, tool
// input JSON split mid-token, usage blocks, [DONE], Responses' typed
// events, Gemini's CRLF-separated pieces, Bedrock's frames), and with
// their error answers (429 with retry-after, 529 overloaded, an error
// event in the stream). What it answers is a script of [Reply] values, one per request
// in order, so a test writes a conversation and then checks the requests
// the client sent.
//
// Like the real services it refuses, with their status and message, a
// request they would refuse: tool_use or tool_result blocks without tool
// definitions, a tool_use whose result is not in the next message (or a
// result without its call), roles out of order, a tool loop with thinking
// on whose thinking was not sent back unchanged (Anthropic's signed
// thinking, OpenAI's encrypted reasoning items, Gemini's thought
// signatures), and, with
// [Server.SetWindow], a prompt over the context window. A refused request
// takes no reply from the script. A reply can stream what a model
// sometimes sends: tool input cut off or not JSON at all (Input is sent
// as written), redacted_thinking, or a stream that stalls.
package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// Reply is the server's answer to one request: a message of blocks, or a
// failure. Blocks are text, thinking and tool uses in order.
type Reply struct {
	Blocks []Block
	// Stop overrides the stop reason (default: tool_use when a block is a
	// tool use, else end_turn), in Anthropic's words; the OpenAI stream
	// maps it to finish_reason.
	Stop string
	// Usage counts reported; zero values get a small made-up count.
	InputTokens, OutputTokens, CacheRead, CacheWrite int64
	// Status, when set, fails the request with this HTTP status and the
	// API's error body; RetryAfter is sent as the retry-after header.
	Status     int
	RetryAfter string
	// StreamError, when set, is an Anthropic error type ("overloaded_error")
	// sent as an error event after the first block, as the service does
	// when it fails mid-stream.
	StreamError string
	// Hold, when set, is waited on after the first block is sent, so a
	// test can act while a response is in flight (cancel it, kill the
	// client). A closed channel releases it.
	Hold <-chan struct{}
	// Model, when set, is the model the answer names (a server that
	// resolved an alias to a dated model); by default the request's.
	Model string
	// Stall stops the stream after the first block (or after the
	// message's start when there is none) with the connection left open,
	// until the client goes away: a server that hangs mid-answer.
	Stall bool
	// Cut drops the connection after the first block, as a network
	// failure or a crashed server does: no closing event, the chunked
	// body ended short.
	Cut bool
	// EndEarly ends the answer after the first block with a clean end of
	// the body but none of the closing events (finish reason, usage,
	// message_stop, response.completed), as a proxy that gives up does.
	EndEarly bool
	// Pace, when set, is waited before each piece of text of the
	// Messages API stream (a piece is 16 bytes, about 4 tokens): a model
	// that streams at a given rate, for a terminal's benchmarks.
	Pace time.Duration
}

// Block is one block of a reply.
type Block struct {
	Kind  string // "text", "thinking", "redacted_thinking", "tool_use"
	Text  string // redacted_thinking: its opaque data
	ID    string // tool_use; made up when empty
	Name  string
	Input string // tool_use: the input JSON, sent as written even when it is not JSON
}

// Text returns a text block.
func Text(s string) Block { return Block{Kind: "text", Text: s} }

// Thinking returns a thinking block.
func Thinking(s string) Block { return Block{Kind: "thinking", Text: s} }

// RedactedThinking returns a redacted_thinking block carrying data, as the
// Messages API sends thinking its safety systems encrypted.
func RedactedThinking(data string) Block { return Block{Kind: "redacted_thinking", Text: data} }

// ToolUse returns a tool_use block.
func ToolUse(name, input string) Block { return Block{Kind: "tool_use", Name: name, Input: input} }

// Say returns a reply of one text block.
func Say(s string) Reply { return Reply{Blocks: []Block{Text(s)}} }

// Call returns a reply that calls tools, as name/input pairs.
func Call(nameInput ...string) Reply {
	var r Reply
	for i := 0; i+1 < len(nameInput); i += 2 {
		r.Blocks = append(r.Blocks, ToolUse(nameInput[i], nameInput[i+1]))
	}
	return r
}

// Request is a request the server received.
type Request struct {
	API  string // "anthropic", "openai" (Chat Completions), "responses", "gemini", "bedrock" or "vertex"
	Path string
	// Header holds the request's headers (x-api-key, authorization).
	Header http.Header
	// Body is the request body as sent.
	Body json.RawMessage
	// Refused is the error message of a request the server refused by
	// the API's rules ("" when it was answered from the script).
	Refused string
	// Tokens is the server's estimate of the prompt's size (a quarter of
	// the body's bytes); it is the input_tokens reported when a window
	// is set and the reply names none.
	Tokens int64
	// model is the model a cloud's path named (its body names none).
	model string
}

// Model returns the model the request named.
func (r Request) Model() string {
	if r.model != "" {
		return r.model
	}
	var v struct{ Model string }
	json.Unmarshal(r.Body, &v)
	return v.Model
}

// Server is a running fake.
type Server struct {
	URL string // http://127.0.0.1:PORT

	srv  *http.Server
	ln   net.Listener
	done chan struct{}

	mu       sync.Mutex
	script   []Reply
	next     int
	requests []Request
	// respond, when set, chooses the reply instead of the script.
	respond func(n int, req Request) Reply
	waiters []chan struct{} // closed by serve once waitN[i] requests arrived
	waitN   []int
	window  int64    // the context window in tokens; 0: none
	tokens  []string // the OAuth access tokens minted (clouds.go)
}

// Start serves script on a free port of 127.0.0.1 until t ends.
func Start(t testing.TB, script ...Reply) *Server {
	t.Helper()
	s, err := Listen(script...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Listen serves script on a free port of 127.0.0.1; Close stops it.
func Listen(script ...Reply) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, script: script, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, "anthropic") })
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, "openai") })
	mux.HandleFunc("POST /v1/responses", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, "responses") })
	mux.HandleFunc("POST /v1beta/models/{call}", func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.PathValue("call"), ":streamGenerateContent") || r.URL.Query().Get("alt") != "sse" {
			writeGeminiError(w, http.StatusNotFound, "fakemodel serves only models/{model}:streamGenerateContent?alt=sse", "")
			return
		}
		s.serve(w, r, "gemini")
	})
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("GET /api/tags", s.tags)
	s.cloudRoutes(mux)
	s.srv = &http.Server{Handler: mux}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln)
	}()
	return s, nil
}

// Respond makes fn choose every reply from now on; n counts requests from 0.
func (s *Server) Respond(fn func(n int, req Request) Reply) {
	s.mu.Lock()
	s.respond = fn
	s.mu.Unlock()
}

// SetWindow gives the model a context window of n tokens: a request whose
// estimated size (see [Request.Tokens]) is larger is refused with the
// API's context-overflow error, a reply without InputTokens reports the
// estimate, and Ollama's /api/show says the model runs with num_ctx n.
// 0 removes the limit.
func (s *Server) SetWindow(n int64) {
	s.mu.Lock()
	s.window = n
	s.mu.Unlock()
}

// show answers Ollama's /api/show: with a window set, the model runs
// with num_ctx of that size, as an Ollama server configured so would
// say; without one, the model is not found.
func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	window := s.window
	s.mu.Unlock()
	if window == 0 {
		http.Error(w, `{"error":"model not found"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"parameters":"num_ctx                        %d\nstop                           \"<|im_end|>\"","model_info":{"general.architecture":"qwen3","qwen3.context_length":262144}}`, window)
}

// tags answers Ollama's /api/tags: the one model a window was set for
// (see show), as a server that has pulled one model lists it.
func (s *Server) tags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	window := s.window
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if window == 0 {
		io.WriteString(w, `{"models":[]}`)
		return
	}
	io.WriteString(w, `{"models":[{"name":"qwen3:8b","model":"qwen3:8b","modified_at":"2026-11-01T10:00:00Z","size":5225388164,"digest":"500a1f067a9f","details":{"format":"gguf","family":"qwen3","parameter_size":"8.2B","quantization_level":"Q4_K_M"}}]}`)
}

// Refusals returns the messages of the requests refused so far.
func (s *Server) Refusals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.requests {
		if r.Refused != "" {
			out = append(out, r.Refused)
		}
	}
	return out
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	s.script = append(s.script, replies...)
	s.mu.Unlock()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Arrived returns a channel closed once n requests have arrived.
func (s *Server) Arrived(n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	if len(s.requests) >= n {
		close(ch)
		return ch
	}
	s.waiters = append(s.waiters, ch)
	s.waitN = append(s.waitN, n)
	return ch
}

// Close stops the server, ending streams in flight.
func (s *Server) Close() {
	s.srv.Close()
	<-s.done
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, api string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{API: api, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Tokens: estimate(body)}
	s.mu.Lock()
	window := s.window
	s.mu.Unlock()
	var refused *refusal
	rules, model := api, modelOf(body)
	if api == "bedrock" || api == "vertex" {
		refused = s.checkCloud(api, r, body)
		rules, model = "anthropic", cloudModel(api, r)
		req.model = model
	}
	if refused == nil {
		refused = s.check(rules, body, window)
	}
	if refused != nil {
		req.Refused = refused.msg
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	for i := 0; i < len(s.waiters); i++ {
		if len(s.requests) >= s.waitN[i] {
			close(s.waiters[i])
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			s.waitN = append(s.waitN[:i], s.waitN[i+1:]...)
			i--
		}
	}
	var reply Reply
	switch {
	case refused != nil:
		s.mu.Unlock()
		writeRefusal(w, api, refused)
		return
	case s.respond != nil:
		fn := s.respond
		s.mu.Unlock()
		reply = fn(n, req)
		s.mu.Lock()
	case s.next < len(s.script):
		reply = s.script[s.next]
		s.next++
	default:
		reply = Reply{Status: http.StatusInternalServerError, Blocks: []Block{Text(fmt.Sprintf("fakemodel: the script has no reply for request %d", n+1))}}
	}
	s.mu.Unlock()
	if reply.Status != 0 {
		writeError(w, api, reply)
		return
	}
	if window > 0 && reply.InputTokens == 0 {
		reply.InputTokens = max(req.Tokens, 1)
	}
	if reply.Stall {
		reply.Hold = make(chan struct{}) // never closed: held until the client leaves
	}
	sw := &sse{w: w, ctx: r.Context()}
	if api == "bedrock" {
		sw.frames = &bedrockFrames{enc: eventstream.NewEncoder()}
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		w.Header().Set("X-Amzn-Bedrock-Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.WriteHeader(http.StatusOK)
	if reply.Model != "" {
		model = reply.Model
	}
	switch api {
	case "anthropic", "bedrock", "vertex":
		writeAnthropic(sw, model, reply, n)
	case "responses":
		writeResponses(sw, body, reply, n)
	case "gemini":
		name, _, _ := strings.Cut(r.PathValue("call"), ":")
		if reply.Model != "" {
			name = reply.Model
		}
		writeGemini(sw, name, reply, n)
	default:
		writeOpenAI(sw, model, reply, n)
	}
}

// sse writes one event at a time and flushes it, as the services do.
type sse struct {
	w   http.ResponseWriter
	ctx context.Context
	// frames, when set, writes each event as Bedrock's event stream.
	frames *bedrockFrames
}

func (s *sse) event(name, data string) {
	if s.frames != nil {
		s.frames.frame(s, name, data)
		return
	}
	if name != "" {
		io.WriteString(s.w, "event: "+name+"\n")
	}
	io.WriteString(s.w, "data: "+data+"\n\n")
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// raw writes bytes as they are, for a wire whose events are not named
// (Gemini's) and flushes them.
func (s *sse) raw(b string) {
	io.WriteString(s.w, b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// cut drops the connection mid-answer: the server closes it without
// ending the chunked body.
func (s *sse) cut() { panic(http.ErrAbortHandler) }

// pace waits d, or until the client goes away (false).
func (s *sse) pace(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
		return false
	}
}

func (s *sse) hold(ch <-chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	case <-s.ctx.Done():
		return false
	}
}

func modelOf(body []byte) string {
	var v struct{ Model string }
	json.Unmarshal(body, &v)
	return v.Model
}

func writeError(w http.ResponseWriter, api string, r Reply) {
	msg := "error"
	if len(r.Blocks) > 0 {
		msg = r.Blocks[0].Text
	}
	switch api {
	case "gemini":
		writeGeminiError(w, r.Status, msg, r.RetryAfter)
		return
	case "bedrock", "vertex":
		writeCloudError(w, api, r.Status, anthropicErrorType(r.Status), msg, r.RetryAfter)
		return
	}
	if r.RetryAfter != "" {
		w.Header().Set("Retry-After", r.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	if api == "anthropic" {
		typ := anthropicErrorType(r.Status)
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_fake"}`, typ, msg)
		return
	}
	code := map[int]string{401: "invalid_api_key", 429: "rate_limit_exceeded"}[r.Status]
	typ := map[int]string{400: "invalid_request_error", 401: "invalid_request_error", 429: "requests", 500: "server_error", 503: "server_error"}[r.Status]
	fmt.Fprintf(w, `{"error":{"message":%q,"type":%q,"param":null,"code":%s}}`, msg, typ, jsonOrNull(code))
}

// anthropicErrorType is the Messages API's error type of a status.
func anthropicErrorType(status int) string {
	typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
		404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}[status]
	if typ == "" {
		typ = "api_error"
	}
	return typ
}

func writeRefusal(w http.ResponseWriter, api string, r *refusal) {
	switch api {
	case "gemini":
		writeGeminiError(w, r.status, r.msg, "")
		return
	case "bedrock", "vertex":
		writeCloudError(w, api, r.status, r.typ, r.msg, "")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	// The services leave < and > as they are in their messages.
	var msg strings.Builder
	enc := json.NewEncoder(&msg)
	enc.SetEscapeHTML(false)
	enc.Encode(r.msg)
	m := strings.TrimSpace(msg.String())
	if api == "anthropic" {
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%s},"request_id":"req_fake"}`, r.typ, m)
		return
	}
	param := "messages"
	if api == "responses" {
		param = "input"
	}
	if r.param != "" {
		param = r.param
	}
	fmt.Fprintf(w, `{"error":{"message":%s,"type":%q,"param":%q,"code":%s}}`, m, r.typ, param, jsonOrNull(r.code))
}

func jsonOrNull(s string) string {
	if s == "" {
		return "null"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// split cuts s into pieces of at most n bytes without regard for tokens,
// as the services cut tool input JSON.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func stopOf(r Reply) string {
	if r.Stop != "" {
		return r.Stop
	}
	for _, b := range r.Blocks {
		if b.Kind == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

func tokens(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

func toolID(api string, n, i int, b Block) string {
	if b.ID != "" {
		return b.ID
	}
	if api == "anthropic" {
		return fmt.Sprintf("toolu_%02d%02dFAKE%s", n, i, strings.Repeat("x", 14))
	}
	return fmt.Sprintf("call_%02d%02dFAKE%s", n, i, strings.Repeat("x", 16))
}
