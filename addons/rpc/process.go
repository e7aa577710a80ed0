package rpc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
)

// Teardown waits, in the order the protocol gives: shutdown is asked for
// and answered, stdin closes, then SIGTERM, then SIGKILL. The waits are
// short because a session is waiting on them.
const (
	shutdownGrace = time.Second            // for the answer to shutdown
	stdinGrace    = 500 * time.Millisecond // to exit once stdin closed
	termGrace     = time.Second            // to exit after SIGTERM
	drainGrace    = 500 * time.Millisecond // for the pipes once the group is gone
	// pingGrace is how long an addon whose call timed out has to answer
	// a ping before it is taken for hung and killed (and restarted).
	pingGrace = time.Second
)

// proc is one run of the addon's process.
type proc struct {
	cmd    *exec.Cmd
	group  *childproc.Group
	unward func()
	stdin  *os.File
	conn   *conn
	decls  *Declarations
	exited chan struct{} // closed once reaped
	done   chan struct{} // closed once reaped and drained

	mu       sync.Mutex
	stopping bool   // the host ended it: not a crash
	killedBy string // why the host killed it, when it did
}

func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// latestRun accepts the log's note of a start, so that a stderr hint
// quotes only the latest run: a run that failed is explained by its own
// stderr, not by that of the run before it.
func latestRun(entry string) bool { return strings.HasPrefix(entry, "host: started ") }

// spawn starts the process with its pipes, its reaper and its readers.
func (s *supervisor) spawn() (*proc, error) {
	cmd := exec.Command(s.command[0], s.command[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append([]string{}, s.env...)
	childproc.OwnGroup(cmd)
	s.ward.Prepare(cmd)
	if err := jail.Wrap(cmd, s.sandbox); err != nil {
		return nil, fmt.Errorf("confining %s: %w", strings.Join(s.command, " "), err)
	}
	pipes, err := childproc.OpenPipes(cmd)
	if err != nil {
		return nil, err
	}
	unward, err := s.ward.Start(cmd, true)
	pipes.CloseChildEnds()
	if err != nil {
		pipes.Close()
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("the command %s was not found (%v); install it or correct [process] command in %s", s.command[0], err, s.file)
		}
		return nil, fmt.Errorf("starting %s: %w", strings.Join(s.command, " "), err)
	}
	inW, outR, errR := pipes.Stdin, pipes.Stdout, pipes.Stderr
	p := &proc{cmd: cmd, group: childproc.NewGroup(cmd), unward: unward, stdin: inW, exited: make(chan struct{}), done: make(chan struct{})}
	p.conn = newConn(inW, s.log)
	s.log.Printf("started %s (pid %d)", strings.Join(s.command, " "), cmd.Process.Pid)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		s.log.Drain("stderr", errR)
	}()
	go p.conn.readLoop(outR)
	go s.reap(p, outR, errR, stderrDone)
	return p, nil
}

// reap waits for the process, clears its group, drains its pipes and
// fails the calls still waiting on it; an exit the host did not ask for
// is a crash.
func (s *supervisor) reap(p *proc, outR, errR *os.File, stderrDone chan struct{}) {
	err := p.group.Reap()
	p.mu.Lock()
	stopping, killedBy := p.stopping, p.killedBy
	p.mu.Unlock()
	p.unward()
	close(p.exited)
	p.stdin.Close()
	for _, w := range []struct {
		done <-chan struct{}
		f    *os.File
	}{{stderrDone, errR}, {p.conn.done, outR}} {
		select {
		case <-w.done:
		case <-time.After(drainGrace):
			w.f.Close() // a descendant that left the group holds it open
			<-w.done
		}
		w.f.Close()
	}
	how := childproc.ExitText(err)
	if killedBy != "" {
		how = "killed by the host: " + killedBy
	}
	s.log.Printf("exited: %s", how)
	hint := s.log.StderrHint(latestRun)
	// Only the process in use counts: one that fails while starting is
	// counted once, by get. The crash is on record before the calls in
	// flight hear of it.
	var q *Quarantine
	s.mu.Lock()
	if s.cur == p {
		s.cur = nil
		if !stopping {
			q = s.crashedLocked(how)
		}
	}
	s.mu.Unlock()
	s.quarantined(q)
	p.conn.end(fmt.Errorf("the addon's process ended (%s)%s", how, hint))
	close(p.done)
}

// kill ends p at once; its exit counts as a crash unless p was being
// stopped anyway.
func (s *supervisor) kill(p *proc, why string) {
	p.mu.Lock()
	if p.killedBy == "" {
		p.killedBy = why
	}
	p.mu.Unlock()
	s.log.Printf("killing the process: %s", why)
	p.group.Signal(true)
	<-p.done
}

// stopProc ends p gracefully: shutdown, stdin closed, SIGTERM, SIGKILL.
func (s *supervisor) stopProc(p *proc) {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	if p.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		err := p.conn.call(ctx, MethodShutdown, struct{}{}, nil)
		cancel()
		if err != nil {
			s.log.Printf("shutdown: %v", err)
		}
	}
	p.group.Stop(p.stdin, p.exited, stdinGrace, termGrace)
	<-p.done
}
