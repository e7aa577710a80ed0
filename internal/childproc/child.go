package childproc

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/childlog"
)

// The waits of a stdio child's stop, in the order MCP's stdio transport
// gives (and the addon protocol follows), and of its pipes. They are short
// because a session is waiting on them; a child that needs longer to
// flush is rare and loses nothing its host needs.
const (
	// StdinGrace is how long a child has to exit after its stdin closes.
	StdinGrace = 500 * time.Millisecond
	// TermGrace is how long a child has to exit after SIGTERM.
	TermGrace = time.Second
	// DrainGrace is how long the output pipes may stay open after the
	// child's process group is gone, held by a descendant that left the
	// group; then they are closed.
	DrainGrace = 500 * time.Millisecond
)

// Options say how [Start] supervises a child.
type Options struct {
	// Ward marks the child (token, parent-death signal) and records its
	// process group, so that it dies with the session. Required.
	Ward *Ward

	// Stdio, when set, gives the child three pipes: its stderr is drained
	// into Log, and Stdio is called with the parent's ends of its stdin
	// and stdout once it runs; the channel it returns is closed when the
	// reader of stdout has met its end. Once the child is reaped that end
	// is waited for up to DrainGrace, then stdout is closed.
	Stdio func(stdin, stdout *os.File) (stdoutDone <-chan struct{})
	// Log is the child's log: its start, with Stdio its stderr.
	Log *childlog.Log

	// ChildEnds are files given to the child (without Stdio) that the
	// parent closes once the child holds its own copies.
	ChildEnds []*os.File

	// Tidy runs once the leader has exited and before it is reaped, while
	// its group may still be signalled (the leader's pid cannot be reused
	// yet); what is left of the group is killed after it.
	Tidy func(*Child)
	// Ended runs once the child is reaped and its pipes drained, before
	// [Child.Done] is closed.
	Ended func(*Child)
}

// Child is one supervised child: it leads a process group of its own (or,
// started with Setsid, a session), is a child of the ward, and is reaped by
// one goroutine that kills what is left of its group, drains its pipes and
// releases it from the ward.
type Child struct {
	cmd     *exec.Cmd
	group   *Group
	release func()

	stdin, stdout, stderr *os.File // with Options.Stdio
	stdoutDone            <-chan struct{}
	stderrDone            chan struct{}

	exited chan struct{} // the leader has exited, maybe not yet reaped
	reaped chan struct{} // the leader is reaped and err is set
	done   chan struct{} // reaped, drained and Ended has run
	err    error
	stop1  sync.Once
}

// Start starts cmd as a supervised child. A failure to start closes what
// it opened and Options.ChildEnds.
func Start(cmd *exec.Cmd, o Options) (*Child, error) {
	if cmd.SysProcAttr == nil || !sessionLeader(cmd) {
		OwnGroup(cmd)
	}
	o.Ward.Prepare(cmd)
	var pipes *Pipes
	if o.Stdio != nil {
		p, err := OpenPipes(cmd)
		if err != nil {
			closeFiles(o.ChildEnds...)
			return nil, err
		}
		pipes = p
	}
	release, err := o.Ward.Start(cmd, true)
	closeFiles(o.ChildEnds...)
	if pipes != nil {
		pipes.CloseChildEnds()
	}
	if err != nil {
		if pipes != nil {
			pipes.Close()
		}
		return nil, err
	}
	c := &Child{cmd: cmd, group: NewGroup(cmd), release: release,
		exited: make(chan struct{}), reaped: make(chan struct{}), done: make(chan struct{})}
	if o.Log != nil {
		o.Log.Printf("started %s (pid %d)", strings.Join(cmd.Args, " "), cmd.Process.Pid)
	}
	if pipes != nil {
		c.stdin, c.stdout, c.stderr = pipes.Stdin, pipes.Stdout, pipes.Stderr
		c.stderrDone = make(chan struct{})
		go func() {
			defer close(c.stderrDone)
			if o.Log != nil {
				o.Log.Drain("stderr", c.stderr)
			} else {
				_, _ = io.Copy(io.Discard, c.stderr)
			}
		}()
		c.stdoutDone = o.Stdio(c.stdin, c.stdout)
	}
	go c.supervise(o.Tidy, o.Ended)
	return c, nil
}

// supervise waits for the leader, lets Tidy run, kills the rest of the
// group and reaps the leader, then drains the pipes.
func (c *Child) supervise(tidy, ended func(*Child)) {
	reaped, err := AwaitExit(c.cmd)
	close(c.exited)
	if tidy != nil {
		tidy(c)
	}
	c.err = c.group.reap(reaped, err)
	c.release()
	close(c.reaped)
	if c.stdin != nil {
		c.stdin.Close() // a write to a gone child fails at once
		if !ClosedWithin(c.stderrDone, DrainGrace) {
			c.stderr.Close() // a descendant that left the group holds it
			<-c.stderrDone
		}
		c.stderr.Close()
		// stdout's reader may be the peer's (an SDK transport) and read
		// no more: closing the pipe ends a read still waiting on it.
		ClosedWithin(c.stdoutDone, DrainGrace)
		c.stdout.Close()
	}
	if ended != nil {
		ended(c)
	}
	close(c.done)
}

// Pid is the child's process id, which is also its group's.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Exited is closed once the leader has exited (it may not be reaped yet).
func (c *Child) Exited() <-chan struct{} { return c.exited }

// Reaped is closed once the leader is reaped; then Err holds its status.
func (c *Child) Reaped() <-chan struct{} { return c.reaped }

// Done is closed once the child is reaped, its pipes are drained and
// Options.Ended has run.
func (c *Child) Done() <-chan struct{} { return c.done }

// Err is the leader's exit status as cmd.Wait gives it; valid after
// Reaped is closed.
func (c *Child) Err() error { return c.err }

// ProcessState is the leader's state; valid after Reaped is closed.
func (c *Child) ProcessState() *os.ProcessState { return c.cmd.ProcessState }

// Signal sends sig to the child's group, unless the leader has been
// reaped (its pid, the group id, may belong to a stranger by then).
func (c *Child) Signal(sig os.Signal) { c.group.send(sig) }

// Terminate sends the group SIGTERM and, when the leader has not exited
// within grace, SIGKILL, which it reports. It does not wait for the reaping.
func (c *Child) Terminate(grace time.Duration) (killed bool) {
	c.group.Signal(false)
	if ClosedWithin(c.exited, grace) {
		return false
	}
	c.group.Signal(true)
	return true
}

// Kill sends the group SIGKILL and waits until the child is done.
func (c *Child) Kill() {
	c.group.Signal(true)
	<-c.done
}

// Stop ends a child started with Options.Stdio politely, once: its stdin
// closed, StdinGrace, SIGTERM, TermGrace, SIGKILL. It returns when the
// child is done.
func (c *Child) Stop() {
	c.stop1.Do(func() { c.group.Stop(c.stdin, c.exited, StdinGrace, TermGrace) })
	<-c.done
}

// closedWithin reports whether ch is closed now or becomes closed within d.
func ClosedWithin(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
