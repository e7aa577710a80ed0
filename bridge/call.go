package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/tool"
)

// callState is one call in flight: its cancel function, its idle timer and
// where its progress goes.
type callState struct {
	cancel   context.CancelCauseFunc
	ctx      context.Context // the caller's, which carries its progress sink
	idle     time.Duration
	mu       sync.Mutex
	timer    *time.Timer
	finished bool
}

// timeoutError is the cause of a call cancelled by its timeout.
type timeoutError struct {
	d    time.Duration
	hard bool // the absolute maximum, not the idle timeout
}

func (e *timeoutError) Error() string {
	if e.hard {
		return fmt.Sprintf("ran past the %v maximum for one call", e.d)
	}
	return fmt.Sprintf("gave no answer or progress for %v", e.d)
}

// call runs tool on the server: the session is (re)started if needed, the
// call is cancelled on the server when ctx ends or the server stays silent
// for the call timeout, and progress notifications push the timeout back up
// to the fleet's maximum.
func (s *server) call(ctx context.Context, exposed, name string, args json.RawMessage) tool.Result {
	l, err := s.ready(ctx)
	if err != nil {
		if errors.Is(err, errDetached) {
			return tool.Errorf("%s is not available: MCP server %q was detached. Use another tool.", exposed, s.cfg.Name)
		}
		if ctx.Err() != nil {
			return tool.Errorf("call to %s was cancelled before MCP server %q was ready (%v).", exposed, s.cfg.Name, err)
		}
		return tool.Errorf("%s is not available: %v", exposed, err)
	}
	idle, hard := s.callTimeout(), s.fleet.opts.MaxCallTimeout
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := &callState{cancel: cancel, ctx: ctx, idle: idle}
	c.timer = time.AfterFunc(idle, func() { cancel(&timeoutError{d: idle}) })
	hardTimer := time.AfterFunc(hard, func() { cancel(&timeoutError{d: hard, hard: true}) })
	token, ok := l.track(c)
	defer func() {
		c.mu.Lock()
		c.finished = true
		c.timer.Stop()
		c.mu.Unlock()
		hardTimer.Stop()
		l.untrack(c, token)
	}()
	if !ok {
		return tool.Errorf("%s is not available: MCP server %q is shutting down.", exposed, s.cfg.Name)
	}
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	params.SetProgressToken(token)
	res, err := l.session.CallTool(callCtx, params)
	if err != nil {
		return s.callFailed(ctx, callCtx, l, exposed, err)
	}
	return convertResult(res)
}

func (s *server) callFailed(ctx, callCtx context.Context, l *link, exposed string, err error) tool.Result {
	name := s.cfg.Name
	var te *timeoutError
	switch cause := context.Cause(callCtx); {
	case errors.As(cause, &te) && te.hard:
		return tool.Errorf("%s %s even though MCP server %q kept reporting progress; the call was cancelled on the server. Ask for less work per call.", exposed, te, name)
	case errors.As(cause, &te):
		return tool.Errorf("%s %s (the callTimeout of MCP server %q); the call was cancelled on the server. Retry with less work, or raise \"callTimeout\" in the server's config.", exposed, te, name)
	case errors.Is(cause, errDetached):
		return tool.Errorf("%s was stopped: MCP server %q was detached during the call.", exposed, name)
	case ctx.Err() != nil:
		return tool.Errorf("call to %s was cancelled (%v); MCP server %q was told to stop it.", exposed, context.Cause(ctx), name)
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Code == codeFrameTooLarge && strings.HasPrefix(rpc.Message, frameTooLargePrefix) {
		return tool.Errorf("%s failed: MCP server %q sent an answer the bridge cannot take: %s. It was dropped; ask for less per call (a smaller range, page or file).", exposed, name, rpc.Message)
	}
	if errors.As(err, &rpc) {
		return tool.Errorf("MCP server %q refused the call to %s: %s (JSON-RPC error %d). Check the input against the tool's schema.", name, exposed, rpc.Message, rpc.Code)
	}
	select {
	case <-l.ended:
	case <-time.After(childproc.DrainGrace):
	}
	select {
	case <-l.ended:
		if l.proc != nil {
			// Let the stderr reader reach the end of the pipe: the
			// server's last words ("panic: …") belong in this message.
			select {
			case <-l.proc.child.Done():
			case <-time.After(childproc.DrainGrace):
			}
		}
		s.mu.Lock()
		s.markDown(l, "the session ended")
		s.settleDown(l)
		why := s.lastErr
		s.mu.Unlock()
		return tool.Errorf("MCP server %q went away during the call to %s (%s). It is restarted on the next call; retry if the call is safe to repeat.", name, exposed, why)
	default:
	}
	return tool.Errorf("calling %s on MCP server %q failed: %v", exposed, name, err)
}

// track registers a call, returning its progress token; ok is false when
// the link is being torn down.
func (l *link) track(c *callState) (token string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return "", false
	}
	l.tokens++
	token = "indusr-" + strconv.FormatUint(l.tokens, 10)
	l.calls[c] = struct{}{}
	l.progress[token] = c
	return token, true
}

func (l *link) untrack(c *callState, token string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.calls, c)
	delete(l.progress, token)
}

// progressed handles a progress notification: it restarts the call's idle
// timer and passes the progress to the caller.
func (l *link) progressed(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	var token string
	switch t := p.ProgressToken.(type) {
	case string:
		token = t
	default:
		return // ours are strings; a number is not one of our calls
	}
	l.mu.Lock()
	c := l.progress[token]
	l.mu.Unlock()
	if c == nil {
		return // the call already ended: progress may trail the result
	}
	c.mu.Lock()
	if !c.finished {
		c.timer.Reset(c.idle)
	}
	c.mu.Unlock()
	tool.ReportProgress(c.ctx, p.Progress, p.Total, p.Message)
}

// normalizeArgs makes a call's input a JSON object: empty or null input is
// {} (TypeScript servers reject null arguments), anything else must be an
// object.
func normalizeArgs(input json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, errors.New("input must be a JSON object")
	}
	return trimmed, nil
}
