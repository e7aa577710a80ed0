package streamhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/indusagi/induscode/conductor"
)

// Printer shows the run on standard output in stream-json, one message a
// line (package agent's printer). The host calls it from one goroutine
// at a time.
type Printer interface {
	Event(conductor.Event)
	Result(*conductor.Result)
	SetSession(id string)
	Flush() error
	// Describe tells the printer what the app's initialize added, for
	// system/init.
	Describe(Description)
}

// Description is what the app's initialize added to the session.
type Description struct {
	// Servers are the app's in-process MCP servers whose tools are
	// grafted.
	Servers []string
}

// Config is what the command line gives the host.
type Config struct {
	// Options are the conversation's options from the flags and settings;
	// the host adds what the app's initialize asks for (system prompt,
	// hooks, its MCP servers' tools, the skills filter) and its own Ask
	// and OnEvent.
	Options conductor.Options
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// NewPrinter returns the stream-json printer writing to out.
	NewPrinter func(out io.Writer) Printer
	// AskApp puts the questions of calls that need permission to the app
	// (--permission-prompt-tool=stdio); otherwise such calls are refused
	// as in any run with no one to ask.
	AskApp bool
	// JSONSchema, when set, is the schema of the final answer
	// (--json-schema); initialize may also carry one.
	JSONSchema string
	// Replay echoes each user message read back on stdout.
	Replay bool
	// MCPConfig are the --mcp-config values: the "sdk" servers among them
	// are the app's own (the Python SDK names them there).
	MCPConfig []string
}

// host is one process's session under an app.
type host struct {
	cfg  Config
	wire *wire
	c    *conductor.Conductor
	out  Printer
	// schema is the final answer's schema ("" for none) and structured
	// the tool that receives it.
	schema     string
	structured *structuredTool
	// initialModel is the model set_model's default returns to.
	initialModel string
	// sessionID is the session's id: the transcript's, or one of its own
	// when no transcript is kept.
	sessionID string

	mu sync.Mutex // guards the fields below
	// queue holds the user messages not yet run, in order; ended says
	// the input ended, so the worker stops once it is empty.
	queue []userMessage
	ended bool
	wake  chan struct{}
	// cancel interrupts the running turn (nil between turns).
	cancel context.CancelFunc
	// servers are the app's in-process MCP servers whose tools are
	// grafted.
	servers []string
	// nodes are the checkpoint nodes of the turns run, by the uuid of
	// their user message (for rewind_files).
	nodes map[string]string
}

// Serve runs the session: it reads the app's messages and control
// requests from cfg.Stdin until it ends, runs each user message as a
// turn in order (the ones read before the end too), answers the control
// requests as they come, even during a turn, and returns once the last
// turn's result is written. The error is for the machine: the session
// could not open, or standard output could not be written.
func Serve(ctx context.Context, cfg Config) error {
	h := &host{cfg: cfg, wire: newWire(cfg.Stdout), wake: make(chan struct{}, 1), schema: cfg.JSONSchema, nodes: map[string]string{}}
	in := make(chan inbound, 64)
	go h.wire.read(cfg.Stdin, in, cfg.Stderr)

	first, ok := <-in
	if !ok {
		return nil // no message: nothing to do
	}
	var init *initRequest
	if first.Type == "control_request" {
		var sub struct{ Subtype string }
		json.Unmarshal(first.Request, &sub)
		if sub.Subtype == "initialize" {
			init = &initRequest{}
			if err := json.Unmarshal(first.Request, init); err != nil {
				h.wire.answer(first.RequestID, nil, fmt.Errorf("initialize: %v", err))
				return fmt.Errorf("the app's initialize request does not decode: %w", err)
			}
		}
	}
	if err := h.open(ctx, init); err != nil {
		if init != nil {
			h.wire.answer(first.RequestID, nil, err)
		}
		return err
	}
	if init != nil {
		h.wire.answer(first.RequestID, h.initAnswer(init), nil)
	} else {
		h.handle(ctx, first)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		h.work(ctx)
	}()
	// The session ends with the input, or with ctx (SIGTERM, Ctrl-C),
	// which also cancels the running turn; its result is still written.
read:
	for {
		select {
		case m, ok := <-in:
			if !ok {
				break read
			}
			h.handle(ctx, m)
		case <-ctx.Done():
			break read
		}
	}
	h.mu.Lock()
	h.ended = true
	h.mu.Unlock()
	h.poke()
	<-done
	cerr := h.c.Close() // session:end; every process the tools started is stopped
	if err := errors.Join(h.out.Flush(), h.wire.failed()); err != nil {
		return err
	}
	if cerr != nil {
		fmt.Fprintln(cfg.Stderr, "indusr:", cerr)
	}
	return nil
}

// poke wakes the worker.
func (h *host) poke() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// handle acts on one line of input other than an answer to indusr.
func (h *host) handle(ctx context.Context, m inbound) {
	switch m.Type {
	case "user":
		u, err := decodeUser(m)
		if err != nil {
			fmt.Fprintln(h.cfg.Stderr, "indusr:", err)
			u = userMessage{uuid: m.UUID, bad: err}
		}
		if m.ShouldQuery != nil && !*m.ShouldQuery && err == nil {
			// Added to the conversation without a turn of its own: the
			// next model call carries it.
			if err := h.c.SendMessage(ctx, u.prompt); err != nil {
				h.warn("%v", err)
			}
			return
		}
		h.mu.Lock()
		h.queue = append(h.queue, u)
		h.mu.Unlock()
		h.poke()
	case "control_request":
		h.control(ctx, m)
	case "control_cancel_request", "keep_alive":
		// indusr answers the app's requests at once, so none is left to
		// cancel.
	default:
		fmt.Fprintf(h.cfg.Stderr, "indusr: a message of type %q on standard input was passed over\n", m.Type)
	}
}

// next waits for the next user message; false once the input ended and
// every message read has run, or ctx ended.
func (h *host) next(ctx context.Context) (userMessage, bool) {
	for {
		h.mu.Lock()
		if len(h.queue) > 0 {
			u := h.queue[0]
			h.queue = h.queue[1:]
			h.mu.Unlock()
			return u, true
		}
		ended := h.ended
		h.mu.Unlock()
		if ended {
			return userMessage{}, false
		}
		select {
		case <-h.wake:
		case <-ctx.Done():
			return userMessage{}, false
		}
	}
}

// work runs the user messages as turns, one after the other.
func (h *host) work(ctx context.Context) {
	for {
		u, ok := h.next(ctx)
		if !ok {
			return
		}
		h.turn(ctx, u)
	}
}

// turn runs one user message to its result.
func (h *host) turn(ctx context.Context, u userMessage) {
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	h.mu.Lock()
	h.cancel = func() { cancel(errInterrupted) }
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.cancel = nil
		h.mu.Unlock()
	}()
	if h.cfg.Replay {
		h.wire.send(map[string]any{"type": "user", "message": u.raw, "session_id": h.sessionID,
			"parent_tool_use_id": nil, "uuid": u.uuid, "isReplay": true})
	}
	h.c.Begin()
	if u.bad != nil {
		h.out.Result(&conductor.Result{Subtype: conductor.ErrorExecution, IsError: true, Text: u.bad.Error(), Err: u.bad})
		return
	}
	if h.structured != nil {
		h.structured.reset()
	}
	res, err := h.c.Run(tctx, u.prompt)
	if err != nil {
		res = &conductor.Result{Subtype: conductor.ErrorExecution, IsError: true, Text: err.Error(), Err: err}
	}
	if res.Node != "" {
		h.mu.Lock()
		h.nodes[u.uuid] = res.Node
		h.mu.Unlock()
	}
	if h.structured != nil && !res.IsError {
		res = h.requireStructured(tctx, res)
	}
	h.out.Result(res)
	h.out.Flush()
}

// errInterrupted is the cause of a turn the app interrupted.
var errInterrupted = errors.New("interrupted by the app")

// open opens the conversation with what init asks for.
func (h *host) open(ctx context.Context, init *initRequest) error {
	o := h.cfg.Options
	h.initialModel = o.Model
	lw := &lineWriter{w: h.wire, patch: h.patchResult}
	h.out = h.cfg.NewPrinter(lw)
	if init != nil {
		if err := h.applyInit(ctx, init, &o); err != nil {
			return err
		}
	}
	if err := h.graftAppServers(ctx, init, &o); err != nil {
		return err
	}
	if h.schema != "" {
		t, err := newStructuredTool(h.schema)
		if err != nil {
			return err
		}
		h.structured = t
		o.Session.Extra = append(o.Session.Extra, t)
		o.AppendSystem = strings.TrimSpace(o.AppendSystem + "\n\n" + structuredBrief)
	}
	if h.cfg.AskApp {
		o.Ask = h.askApp
	}
	o.OnEvent = func(e conductor.Event) {
		if s, ok := e.(conductor.Started); ok && s.SessionID == "" {
			s.SessionID = h.sessionID
			e = s
		}
		h.out.Event(e)
	}
	c, err := conductor.Open(ctx, o)
	if err != nil {
		return err
	}
	h.c = c
	h.sessionID = c.SessionID()
	if h.sessionID == "" {
		h.sessionID = newID() // no transcript is kept; the app still needs an id
	}
	h.out.SetSession(h.sessionID)
	h.out.Describe(Description{Servers: h.servers})
	return nil
}

// warn tells the user something on stderr (the SDK hands stderr to the
// app's stderr callback).
func (h *host) warn(format string, args ...any) {
	fmt.Fprintf(h.cfg.Stderr, "indusr: "+format+"\n", args...)
}

// pid is the process id, for initialize's answer.
var pid = os.Getpid
