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
// and answered, then the child's stop (stdin closed, SIGTERM, SIGKILL, with
// childproc's waits).
const (
	shutdownGrace = time.Second // for the answer to shutdown
	// pingGrace is how long an addon whose call timed out has to answer
	// a ping before it is taken for hung and killed (and restarted).
	pingGrace = time.Second
)

// proc is one run of the addon's process, a supervised child.
type proc struct {
	child *childproc.Child
	conn  *conn
	decls *Declarations
	done  <-chan struct{} // closed once reaped, drained and its calls failed

	mu       sync.Mutex
	stopping bool   // the host ended it: not a crash
	killedBy string // why the host killed it, when it did
}

func (p *proc) alive() bool {
	select {
	case <-p.child.Exited():
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
	if s.check != nil {
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("not started: %w", err)
		}
	}
	cmd := exec.Command(s.command[0], s.command[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append([]string{}, s.env...)
	if err := jail.Wrap(cmd, s.sandbox); err != nil {
		return nil, fmt.Errorf("confining %s: %w", strings.Join(s.command, " "), err)
	}
	p := &proc{}
	child, err := childproc.Start(cmd, childproc.Options{
		Ward: s.ward,
		Log:  s.log,
		Stdio: func(stdin, stdout *os.File) <-chan struct{} {
			p.conn = newConn(stdin, s.log)
			go p.conn.readLoop(stdout)
			return p.conn.done
		},
		Ended: func(c *childproc.Child) { s.ended(p, c.Err()) },
	})
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("the command %s was not found (%v); install it or correct [process] command in %s", s.command[0], err, s.file)
		}
		return nil, fmt.Errorf("starting %s: %w", strings.Join(s.command, " "), err)
	}
	p.child, p.done = child, child.Done()
	return p, nil
}

// ended runs once the process is reaped and its pipes drained: an exit the
// host did not ask for is a crash, and the calls still waiting on it fail.
func (s *supervisor) ended(p *proc, err error) {
	p.mu.Lock()
	stopping, killedBy := p.stopping, p.killedBy
	p.mu.Unlock()
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
	p.child.Kill()
}

// stopProc ends p gracefully: shutdown, then the child's stop.
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
	p.child.Stop()
}
