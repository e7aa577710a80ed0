package shell

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/jail"
)

// MaxExecOutput bounds what [Engine.Exec] keeps of each stream (1 MiB):
// its callers (addon commands) show the output to a person, and a
// command that prints more belongs in a background process.
const MaxExecOutput = 1 << 20

// ExecResult is how a command run by [Engine.Exec] ended.
type ExecResult struct {
	Stdout string
	Stderr string
	// Code is the exit code; -1 when the command was stopped.
	Code int
	// Stopped says why the command was stopped (timeout, cancellation,
	// the session ending); empty when it exited by itself.
	Stopped string
}

// Exec runs command in dir, in its own process group like bash, with args
// as its positional parameters: the command text reads them as "$@", $1
// and so on, and they are never parsed as shell syntax. The whole group is
// stopped when timeout passes (0 means DefaultTimeout) or ctx ends.
// The error is for a command that could not start.
func (e *Engine) Exec(ctx context.Context, command string, args []string, dir string, timeout time.Duration) (ExecResult, error) {
	return e.ExecInput(ctx, command, args, dir, timeout, ExecInput{})
}

// ExecInput is what a command run by [Engine.ExecInput] gets beyond what
// Exec gives it.
type ExecInput struct {
	// Stdin is what the command reads on its standard input; nil means
	// the null device, as for Exec.
	Stdin []byte
	// Env are NAME=value variables added after the session's environment
	// (so they win over a variable of the same name).
	Env []string
	// Sandbox confines the command (an addon's grants, say); nil means
	// the engine's own policy (see [Engine.Confine]).
	Sandbox *jail.Policy
}

// ExecInput is Exec with standard input and more environment variables:
// the way to run a program that takes a request on stdin, such as a
// command hook.
func (e *Engine) ExecInput(ctx context.Context, command string, args []string, dir string, timeout time.Duration, in ExecInput) (ExecResult, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	out, errOut := &capture{}, &capture{}
	g, err := e.runForegroundInput(command, args, dir, in, out, errOut)
	if err != nil {
		return ExecResult{Code: -1}, err
	}
	defer e.untrack(g)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var why string
	select {
	case <-g.done:
	case <-timer.C:
		why = fmt.Sprintf("timed out after %s", seconds(timeout))
		g.stop()
	case <-ctx.Done():
		why = fmt.Sprintf("cancelled (%v)", context.Cause(ctx))
		g.stop()
	}
	<-g.done
	st, stopped, _, _ := g.result()
	r := ExecResult{Stdout: out.String(), Stderr: errOut.String(), Code: st.code, Stopped: why}
	switch {
	case why != "":
		r.Code = -1
	case stopped:
		r.Code, r.Stopped = -1, "the session ended"
	case st.err != nil:
		return r, fmt.Errorf("waiting for the command: %w", st.err)
	}
	return r, nil
}

// capture keeps the first MaxExecOutput bytes of a stream.
type capture struct {
	mu   sync.Mutex
	buf  []byte
	lost int
}

func (c *capture) write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := MaxExecOutput - len(c.buf)
	if room < len(p) {
		c.lost += len(p) - max(room, 0)
		p = p[:max(room, 0)]
	}
	c.buf = append(c.buf, p...)
}

func (c *capture) close() {}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost > 0 {
		return string(c.buf) + fmt.Sprintf("\n[%d more bytes were cut]\n", c.lost)
	}
	return string(c.buf)
}
