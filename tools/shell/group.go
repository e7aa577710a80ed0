package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
)

// StopGrace is how long a process group gets between SIGTERM and SIGKILL.
// Three seconds is enough for a dev server to
// flush and exit, short enough that a stuck one does not hold the agent up.
const StopGrace = 3000 * time.Millisecond

// drainGrace bounds the wait for output pipes to close after the group got
// SIGKILL. Only a process that left the group (setsid) can still hold them
// then; we stop reading rather than wait for it.
const drainGrace = 500 * time.Millisecond

// readChunk is the size of one read from an output pipe: large enough that
// a process printing gigabytes costs few reads, small enough to allocate
// per stream.
const readChunk = 256 << 10

// sink receives one output stream. Each sink is written by one goroutine
// only; close is called once, after the last write.
type sink interface {
	write(p []byte)
	close()
}

// exitStatus is how a command ended.
type exitStatus struct {
	code   int    // exit code; 128+n when signal n ended it
	signal string // the signal that ended it, if any
	err    error  // a failure to wait for it, if any
}

// group is one command running as the leader of its own process group (a
// supervised child, childproc.Child), with its output pipes and the
// goroutines that read them.
type group struct {
	child   *childproc.Child
	pid     int
	started time.Time

	drained chan struct{}   // every output pipe reached EOF or was cut off
	done    <-chan struct{} // the leader is reaped and status is set
	pipes   []*os.File      // read ends
	held    *os.File        // a terminal's child end, kept open until the leader's output is read (see catchUp)
	watch   *jail.Watcher   // the protected paths a sandboxed command could make

	mu        sync.Mutex
	stopping  bool // stop was called
	escalated bool // stop had to use SIGKILL
	status    exitStatus
	ended     time.Time
	notes     []string // sandbox notes not yet reported
	stopOnce  sync.Once
}

// spawn starts command in dir with the given output sinks: with one sink,
// stdout and stderr share one pipe, so their order is kept; with two, each
// stream has its own.
func spawn(ward *childproc.Ward, command, dir string, sinks ...sink) (*group, error) {
	return spawnArgs(ward, nil, command, nil, dir, nil, nil, sinks...)
}

// spawnArgs is spawn with args as the shell's positional parameters: the
// command reads them as "$@" (and $0 is "indusr"), so they are never
// parsed as shell text. env nil means the process environment with
// INDUSR=1; the ward's own variable is added after it either way. stdin
// nil connects the null device; otherwise the command reads those bytes.
// A non-nil sandbox confines the command (see shellCmd).
func spawnArgs(ward *childproc.Ward, sandbox *jail.Policy, command string, args []string, dir string, env []string, stdin []byte, sinks ...sink) (*group, error) {
	cmd := shellCmd(command, args, dir, env, sandbox)
	// Stdin nil: os/exec connects the null device.
	if stdin != nil {
		if f := filledPipe(stdin); f != nil {
			// The whole input fits in the pipe: no copying goroutine.
			defer f.Close() // the child holds its own copy
			cmd.Stdin = f
		} else {
			cmd.Stdin = bytes.NewReader(stdin)
			// os/exec copies stdin from a goroutine that Wait waits for;
			// a child that neither reads nor closes it (a background job
			// holding the pipe) must not hold Wait up.
			cmd.WaitDelay = drainGrace
		}
	}
	return spawnPipes(ward, cmd, nil, sinks...)
}

// spawnPiped is spawn with a pipe for standard input, whose write end it
// returns: the input of a background process.
func spawnPiped(ward *childproc.Ward, sandbox *jail.Policy, command, dir string, env []string, sinks ...sink) (*group, *os.File, error) {
	cmd := shellCmd(command, nil, dir, env, sandbox)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("creating input pipe: %w", err)
	}
	cmd.Stdin = r
	g, err := spawnPipes(ward, cmd, []*os.File{r}, sinks...)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return g, w, nil
}

// shellCmd is the command that runs command under the shell, with args
// as its positional parameters, in dir with env (nil: baseEnv), confined by
// sandbox when it is not nil. A sandbox that cannot be applied becomes
// cmd.Err, which Start returns: the command never runs unconfined.
func shellCmd(command string, args []string, dir string, env []string, sandbox *jail.Policy) *exec.Cmd {
	sh := shellPath()
	cmd := exec.Command(sh, append([]string{"-c", command, "indusr"}, args...)...)
	cmd.Dir = dir
	cmd.Env = env
	if cmd.Env == nil {
		cmd.Env = baseEnv()
	}
	if err := jail.Wrap(cmd, sandbox); err != nil {
		cmd.Err = err
	}
	return cmd
}

// spawnPipes starts cmd in a process group of its own with an output pipe
// per sink: with one sink, stdout and stderr share one pipe, so their
// order is kept; with two, each stream has its own. childEnds are files
// the child gets that the parent closes once it started.
func spawnPipes(ward *childproc.Ward, cmd *exec.Cmd, childEnds []*os.File, sinks ...sink) (*group, error) {
	var reads []*os.File
	closeAll := func() {
		for _, f := range childEnds {
			f.Close()
		}
		for _, f := range reads {
			f.Close()
		}
	}
	var writeEnds []*os.File
	for range sinks {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("creating output pipe: %w", err)
		}
		growPipe(w)
		reads = append(reads, r)
		writeEnds = append(writeEnds, w)
		childEnds = append(childEnds, w)
	}
	switch len(sinks) {
	case 1:
		cmd.Stdout, cmd.Stderr = writeEnds[0], writeEnds[0]
	case 2:
		cmd.Stdout, cmd.Stderr = writeEnds[0], writeEnds[1]
	default:
		closeAll()
		return nil, errors.New("spawn needs one or two output sinks")
	}
	return launch(ward, cmd, reads, childEnds, nil, sinks)
}

// launch starts cmd as a supervised child of the ward and pumps each of
// reads into the sink at the same index. childEnds are closed once the
// child holds its own copies; held stays open until the leader has exited
// and its output is read (tidy). On failure reads and held are closed too.
func launch(ward *childproc.Ward, cmd *exec.Cmd, reads, childEnds []*os.File, held *os.File, sinks []sink) (*group, error) {
	g := &group{drained: make(chan struct{}), pipes: reads, held: held, watch: jail.WatchCmd(cmd)}
	child, err := childproc.Start(cmd, childproc.Options{Ward: ward, ChildEnds: childEnds, Tidy: g.tidy, Ended: g.end})
	if err != nil {
		for _, f := range reads {
			f.Close()
		}
		if held != nil {
			held.Close()
		}
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	g.child, g.pid, g.done = child, child.Pid(), child.Done()
	g.started = time.Now()

	var readers sync.WaitGroup
	for i, s := range sinks {
		readers.Add(1)
		go func(r *os.File, s sink) {
			defer readers.Done()
			pump(r, s)
		}(reads[i], s)
	}
	go func() {
		readers.Wait()
		close(g.drained)
	}()
	return g, nil
}

// readBufs recycles read buffers: a short command would otherwise
// allocate (and the collector sweep) a readChunk per stream.
var readBufs = sync.Pool{New: func() any { return new([readChunk]byte) }}

// pump copies a pipe into a sink until EOF or until the pipe is cut off.
// Sinks copy what they keep, so the buffer is reused.
func pump(r *os.File, s sink) {
	defer s.close()
	bp := readBufs.Get().(*[readChunk]byte)
	defer readBufs.Put(bp)
	buf := bp[:]
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.write(buf[:n])
		}
		if err != nil {
			// A terminal's controller reads EIO once no process holds the
			// terminal: its end of output.
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, syscall.EIO) {
				s.write([]byte(fmt.Sprintf("\n[reading output failed: %v]\n", err)))
			}
			return
		}
	}
}

// end records how the command ended, once its leader is reaped.
func (g *group) end(c *childproc.Child) {
	for _, p := range g.pipes {
		p.Close()
	}
	code, sig := describeExit(c.ProcessState())
	st := exitStatus{code: code, signal: sig}
	var ee *exec.ExitError
	if err := c.Err(); err != nil && !errors.As(err, &ee) {
		st.err = err
	}
	notes := g.watch.Sweep() // the group is gone: what it made stays made
	g.mu.Lock()
	g.status, g.ended = st, time.Now()
	g.notes = append(g.notes, notes...)
	g.mu.Unlock()
}

// sandboxNotes sweeps the protected paths the command could make (see
// jail.Watcher) and returns the notes not yet reported, one per path moved.
func (g *group) sandboxNotes() []string {
	notes := g.watch.Sweep()
	g.mu.Lock()
	defer g.mu.Unlock()
	notes = append(g.notes, notes...)
	g.notes = nil
	return notes
}

// tidy runs once the leader has exited. Whatever else is left in the group
// (a job the command put in the background) gets SIGTERM, time to finish
// writing, and then SIGKILL. If the output is already closed nothing is
// holding it, and the group is killed at once.
func (g *group) tidy(c *childproc.Child) {
	if g.held != nil {
		g.catchUp()
		g.held.Close()
	}
	if !childproc.ClosedWithin(g.drained, 0) {
		c.Signal(sigTerm)
		childproc.ClosedWithin(g.drained, StopGrace)
	}
	c.Signal(sigKill)
	if !childproc.ClosedWithin(g.drained, drainGrace) {
		// A process that escaped the group (setsid) still holds a pipe.
		for _, p := range g.pipes {
			p.SetReadDeadline(time.Now())
		}
		<-g.drained
	}
}

// signal sends sig to the group unless the leader has been reaped.
func (g *group) signal(sig os.Signal) { g.child.Signal(sig) }

// stop ends the group: SIGTERM, then SIGKILL if the leader is still alive
// after StopGrace. It returns once the leader is reaped. Calling it again,
// or concurrently, waits for the same end; a group whose leader has
// already exited is not marked as stopped.
func (g *group) stop() {
	g.stopOnce.Do(func() {
		if childproc.ClosedWithin(g.child.Exited(), 0) {
			return // it ended on its own; the child is tidying up
		}
		g.mu.Lock()
		g.stopping = true
		g.mu.Unlock()
		if g.child.Terminate(StopGrace) {
			g.mu.Lock()
			g.escalated = true
			g.mu.Unlock()
		}
	})
	<-g.done
}

// result returns how the group ended; call it after done is closed.
func (g *group) result() (st exitStatus, stopped, escalated bool, ran time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.status, g.stopping, g.escalated, g.ended.Sub(g.started)
}

// shellPath is the shell commands run under: bash, or sh where bash is
// missing.
var shellPath = sync.OnceValue(func() string { return findShell(exec.LookPath) })

func findShell(lookPath func(string) (string, error)) string {
	for _, name := range []string{"bash", "sh"} {
		if p, err := lookPath(name); err == nil {
			return p
		}
	}
	return "/bin/sh"
}

// baseEnv is the environment every command starts from: the process's
// own, with INDUSR=1 so scripts can tell they run under indusr.
func baseEnv() []string { return append(os.Environ(), "INDUSR=1") }

// filledPipe returns the read end of a pipe already holding all of data
// with its write end closed, or nil when data does not fit in a pipe's
// default capacity (64 KiB on Linux, the least a pipe holds) or the pipe
// cannot be made.
func filledPipe(data []byte) *os.File {
	if len(data) > 64<<10 {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	_, err = w.Write(data)
	w.Close()
	if err != nil {
		r.Close()
		return nil
	}
	return r
}
