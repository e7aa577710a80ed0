package cards

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

// Command runner limits. Ten minutes lets a sub-agent do real work and
// still ends one that is stuck; 12,000 characters from each end keep the
// sub-agent's conclusion (the tail) and its first findings (the head)
// within a model's comfortable result size.
const (
	DefaultDelegateTimeout = 10 * time.Minute
	delegateHead           = 12_000
	delegateTail           = 12_000
	// killGrace bounds the wait for output pipes after the group was
	// killed; only a process that left the group can hold them longer.
	killGrace = 2 * time.Second
)

// CommandAgent is an external agent CLI launched per delegation. Argv is
// an argument template, never parsed by a shell: an element equal to or
// containing {objective}, {context} or {agent} has it replaced by the
// delegation's value. When the template has no {context}, a non-empty
// context is appended to the objective.
type CommandAgent struct {
	Name        string
	Description string
	Argv        []string // for example {"claude", "-p", "{objective}"}
}

// CommandRunner is a [DelegateRunner] that runs each delegation as a
// child process group in Dir, with a timeout, and returns its merged
// output (head and tail when long). Cancelling the call kills the group.
type CommandRunner struct {
	Roster  []CommandAgent
	Dir     string
	Timeout time.Duration // 0 means DefaultDelegateTimeout
	Env     []string      // extra KEY=value pairs on top of the deck's environment

	wardOnce sync.Once
	ward     *childproc.Ward
}

// guard is the ward of the runner's agents: each gets a parent-death
// signal and its group is recorded under Dir's workspace, so an indusr
// killed with SIGKILL leaves no agent running (the next session start
// kills what escaped the signal), as for every other child of a session.
func (r *CommandRunner) guard() *childproc.Ward {
	r.wardOnce.Do(func() {
		dir := ""
		if r.Dir != "" {
			dir = workspace.At(r.Dir).Procs()
		}
		r.ward = childproc.NewWard(dir)
	})
	return r.ward
}

var _ DelegateRunner = (*CommandRunner)(nil)

// Agents lists the roster.
func (r *CommandRunner) Agents() []Agent {
	out := make([]Agent, len(r.Roster))
	for i, a := range r.Roster {
		out[i] = Agent{Name: a.Name, Description: a.Description}
	}
	return out
}

// expand fills the agent's template for d.
func (a CommandAgent) expand(d Delegation) []string {
	objective := d.Objective
	hasContext := false
	for _, arg := range a.Argv {
		hasContext = hasContext || strings.Contains(arg, "{context}")
	}
	if !hasContext && strings.TrimSpace(d.Context) != "" {
		objective += "\n\nContext:\n" + d.Context
	}
	rep := strings.NewReplacer("{objective}", objective, "{context}", d.Context, "{agent}", a.Name)
	out := make([]string, len(a.Argv))
	for i, arg := range a.Argv {
		out[i] = rep.Replace(arg)
	}
	return out
}

// Run launches the agent for d and waits for it.
func (r *CommandRunner) Run(ctx context.Context, d Delegation) (string, error) {
	agent, ok := r.pick(d.Agent)
	if !ok {
		return "", fmt.Errorf("no agent named %q in the roster", d.Agent)
	}
	if len(agent.Argv) == 0 {
		return "", fmt.Errorf("agent %q has an empty command template", agent.Name)
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultDelegateTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := agent.expand(d)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), r.Env...)
	cmd.Stdin = nil
	// The agent leads a process group of its own: stopping it (timeout,
	// cancellation) and its end both kill the whole group, so nothing it
	// started outlives the call.
	childproc.OwnGroup(cmd)
	r.guard().Prepare(cmd)
	// The session's sandbox, when the task card passes one (see Task).
	if err := jail.Wrap(cmd, jail.FromContext(ctx)); err != nil {
		return "", fmt.Errorf("agent %s: %w", agent.Name, err)
	}
	watch := jail.WatchCmd(cmd)
	cmd.WaitDelay = killGrace
	out := &capture{ctx: ctx}
	cmd.Stdout, cmd.Stderr = out, out
	release, err := r.guard().Start(cmd, true)
	if err == nil {
		g := childproc.NewGroup(cmd)
		stop := context.AfterFunc(runCtx, func() { g.Signal(true) })
		err = g.Reap()
		stop()
		release()
	}
	text := out.String()
	if notes := watch.Sweep(); len(notes) > 0 {
		text += "\n" + strings.Join(notes, "\n")
	}
	switch {
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return text, fmt.Errorf("agent %s timed out after %s and was stopped", agent.Name, timeout)
	case ctx.Err() != nil:
		return text, fmt.Errorf("agent %s was cancelled and stopped", agent.Name)
	case err != nil:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return text, fmt.Errorf("agent %s exited with %s", agent.Name, exit.ProcessState)
		}
		return text, fmt.Errorf("cannot run agent %s (%s): %w", agent.Name, argv[0], err)
	}
	return text, nil
}

func (r *CommandRunner) pick(name string) (CommandAgent, bool) {
	if name == "" && len(r.Roster) > 0 {
		return r.Roster[0], true
	}
	for _, a := range r.Roster {
		if a.Name == name {
			return a, true
		}
	}
	return CommandAgent{}, false
}

// capture keeps the first delegateHead and last delegateTail bytes of
// the output, and reports each complete line as progress.
type capture struct {
	ctx     context.Context
	mu      sync.Mutex
	head    []byte
	tail    []byte // ring of the latest bytes once head is full
	dropped int
	partial []byte
	lines   int
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.progress(p)
	if room := delegateHead - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - delegateTail; over > 0 {
		c.dropped += over
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
	return n, nil
}

// progress reports every finished line, cut to one screen line.
func (c *capture) progress(p []byte) {
	c.partial = append(c.partial, p...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			if len(c.partial) > 4096 {
				c.partial = c.partial[:0]
			}
			return
		}
		line := strings.TrimSpace(string(c.partial[:i]))
		c.partial = c.partial[i+1:]
		if line == "" {
			continue
		}
		c.lines++
		if len(line) > 200 {
			line = line[:200] + "…"
		}
		tool.ReportProgress(c.ctx, float64(c.lines), 0, line)
	}
}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.ToValidUTF8(string(c.head), "\uFFFD")
	if c.dropped > 0 {
		s += fmt.Sprintf("\n\n[… %d bytes of output omitted …]\n\n", c.dropped)
	}
	return s + strings.ToValidUTF8(string(c.tail), "\uFFFD")
}
