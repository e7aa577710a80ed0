package childproc

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Group is a started child that leads a process group of its own (see
// [OwnGroup]), so that signals reach everything it spawned (npx starts
// node, uvx starts python). It orders signals against reaping the leader:
// once the leader is reaped its pid, which is the group id, may be handed
// to a stranger's process, so no group signal is sent after that.
type Group struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	reaped bool
}

// NewGroup returns the group of cmd, started after [OwnGroup].
func NewGroup(cmd *exec.Cmd) *Group { return &Group{cmd: cmd} }

// Signal sends the group SIGKILL (hard) or SIGTERM, unless its leader has
// been reaped. Where there are no process groups it kills the direct
// child.
func (g *Group) Signal(hard bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.reaped {
		signalGroup(g.cmd, hard)
	}
}

// send sends sig to the group unless its leader has been reaped.
func (g *Group) send(sig os.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.reaped {
		sendGroup(g.cmd, sig)
	}
}

// Reap waits for the leader to exit, kills what is left of its group and
// reaps the leader, returning its exit status. The leader stays a zombie
// while the group is killed (see [AwaitExit]), so the signal cannot reach
// a process that reused the pid.
func (g *Group) Reap() error {
	reaped, err := AwaitExit(g.cmd)
	return g.reap(reaped, err)
}

// reap is Reap once AwaitExit has returned.
func (g *Group) reap(reaped bool, err error) error {
	if !reaped {
		g.Signal(true)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if reaped {
		// Where a zombie cannot be kept, the group id stays reserved while
		// the group has members, which leaves a narrow window only.
		signalGroup(g.cmd, true)
	} else {
		err = g.cmd.Wait()
	}
	g.reaped = true
	return err
}

// Stop ends the child in the order MCP's stdio transport gives (and the
// addon protocol follows): close its stdin, wait up to stdinGrace for it
// to exit, SIGTERM, wait up to termGrace, SIGKILL. exited is closed by the
// caller's reaper once the child has exited.
func (g *Group) Stop(stdin io.Closer, exited <-chan struct{}, stdinGrace, termGrace time.Duration) {
	stdin.Close()
	select {
	case <-exited:
	case <-time.After(stdinGrace):
		g.Signal(false)
		select {
		case <-exited:
		case <-time.After(termGrace):
			g.Signal(true)
		}
	}
}

// ExitText says how a child ended, from the error of its Wait: "exit
// status 1", "signal: killed".
func ExitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ProcessState.String()
	}
	return err.Error()
}

// Pipes are a child's stdin, stdout and stderr as pipes with *os.File ends:
// the child gets the descriptors directly, with no copying goroutines, and
// Wait returns when the child exits even if a grandchild still holds the
// pipes. Stdin, Stdout and Stderr are the parent's ends.
type Pipes struct {
	Stdin, Stdout, Stderr *os.File
	child                 [3]*os.File
}

// OpenPipes opens the three pipes and sets them as cmd's stdio. After
// starting cmd call [Pipes.CloseChildEnds]; when the start failed, also
// [Pipes.Close].
func OpenPipes(cmd *exec.Cmd) (*Pipes, error) {
	p := &Pipes{}
	var err error
	if p.child[0], p.Stdin, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.Stdout, p.child[1], err = os.Pipe(); err != nil {
		p.Close()
		return nil, err
	}
	if p.Stderr, p.child[2], err = os.Pipe(); err != nil {
		p.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.child[0], p.child[1], p.child[2]
	return p, nil
}

// CloseChildEnds closes the ends the child holds (its own copies stay
// open), so the parent sees the end of stdout and stderr when it exits.
func (p *Pipes) CloseChildEnds() {
	closeFiles(p.child[:]...)
	p.child = [3]*os.File{}
}

// Close closes the parent's ends and the child's.
func (p *Pipes) Close() {
	closeFiles(p.Stdin, p.Stdout, p.Stderr)
	p.CloseChildEnds()
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}
