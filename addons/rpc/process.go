package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/childproc"
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

// errQuarantined is the cause of calls refused because the addon is
// quarantined.
var errQuarantined = errors.New("the addon is quarantined")

// supervisor runs the process of one addon: started on first use,
// restarted after a crash (with backoff), quarantined after repeated
// crashes, stopped with the session.
type supervisor struct {
	id        addons.ID
	file      string // the manifest, for messages
	dir       string // the addon's folder, its working directory
	command   []string
	env       []string // NAME=value, only the allowed names
	timeout   time.Duration
	startWait time.Duration // for the start and initialize
	params    InitializeParams
	ward      *childproc.Ward
	log       *addonLog
	statePath string
	report    func(*addons.Fault)

	mu        sync.Mutex
	loaded    bool // registered: from now on a failure to start is a crash
	rec       record
	cur       *proc
	starting  chan struct{} // closed when the start under way ends
	notBefore time.Time     // backoff after a crash
	closed    bool
	probes    sync.WaitGroup
}

// proc is one run of the addon's process.
type proc struct {
	cmd     *exec.Cmd
	unward  func()
	stdin   *os.File
	conn    *conn
	decls   *Declarations
	exited  chan struct{} // closed once reaped
	exitErr error
	done    chan struct{} // closed once reaped and drained

	mu       sync.Mutex // orders group signals against reaping the leader
	reaped   bool
	stopping bool   // the host ended it: not a crash
	killedBy string // why the host killed it, when it did
}

func (p *proc) signal(hard bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		signalGroup(p.cmd, hard)
	}
}

func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// get returns the running process, starting it when there is none: it
// waits for a start under way or for the backoff after a crash, and
// refuses while the addon is quarantined.
func (s *supervisor) get(ctx context.Context) (*proc, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, errors.New("the session is closing")
		}
		if q := s.rec.Quarantined; q.active(time.Now()) {
			s.mu.Unlock()
			return nil, fmt.Errorf("%w since %s (%s); change the addon (any change to its files lifts it) or wait until %s",
				errQuarantined, q.Since.Format(time.TimeOnly), q.Reason, q.Since.Add(QuarantinePeriod).Format(time.TimeOnly))
		}
		if p := s.cur; p != nil {
			s.mu.Unlock()
			if p.alive() {
				return p, nil
			}
			select { // its reaper counts the crash first
			case <-p.done:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if ch := s.starting; ch != nil {
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if wait := time.Until(s.notBefore); wait > 0 {
			s.mu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-t.C:
				continue
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		s.starting = ch
		s.mu.Unlock()

		p, err := s.start(ctx)

		s.mu.Lock()
		s.starting = nil
		close(ch)
		if err != nil {
			q := s.crashedLocked(err.Error())
			s.mu.Unlock()
			s.quarantined(q)
			return nil, err
		}
		if s.closed {
			s.mu.Unlock()
			s.stopProc(p)
			return nil, errors.New("the session is closing")
		}
		s.cur = p
		s.mu.Unlock()
		return p, nil
	}
}

// start runs the command and the initialize handshake, within startWait
// but not cut short by the caller's cancellation (the next caller would
// only start it again).
func (s *supervisor) start(ctx context.Context) (*proc, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.startWait)
	defer cancel()
	p, err := s.spawn()
	if err != nil {
		return nil, err
	}
	var d Declarations
	if err := p.conn.call(ctx, MethodInitialize, s.params, &d); err != nil {
		s.kill(p, "it failed to initialize")
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("it did not answer initialize within %v%s", s.startWait, s.log.stderrHint())
		}
		return nil, fmt.Errorf("initialize failed: %w", err)
	}
	if err := d.check(); err != nil {
		s.kill(p, "its declarations were refused")
		return nil, err
	}
	p.decls = &d
	if err := p.conn.notify(ctx, MethodInitialized, struct{}{}); err != nil {
		s.kill(p, "it did not take the initialized notification")
		return nil, fmt.Errorf("sending initialized: %w", err)
	}
	s.remember(&d)
	return p, nil
}

// remember caches what the addon declared. Declarations that differ from
// those registered this session take effect in the next one; a fault says
// so.
func (s *supervisor) remember(d *Declarations) {
	s.mu.Lock()
	old := s.rec.Declarations
	s.rec.Declarations = d
	s.saveLocked()
	s.mu.Unlock()
	// Compared as JSON: the cached copy went through a file, and the
	// encoder compacts both the same way.
	was, _ := json.Marshal(old)
	now, _ := json.Marshal(d)
	if old != nil && !bytes.Equal(was, now) {
		s.fault(addons.LoadFault, "the addon now declares other handlers, interceptors, commands or tools than when it was registered; the new ones take effect in the next session", nil)
	}
}

// spawn starts the process with its pipes, its reaper and its readers.
func (s *supervisor) spawn() (*proc, error) {
	cmd := exec.Command(s.command[0], s.command[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append([]string{}, s.env...)
	ownProcessGroup(cmd)
	s.ward.Prepare(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	unward, err := s.ward.Start(cmd, true)
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("the command %s was not found (%v); install it or correct [process] command in %s", s.command[0], err, s.file)
		}
		return nil, fmt.Errorf("starting %s: %w", strings.Join(s.command, " "), err)
	}
	p := &proc{cmd: cmd, unward: unward, stdin: inW, exited: make(chan struct{}), done: make(chan struct{})}
	p.conn = newConn(inW, s.log)
	s.log.printf("started %s (pid %d)", strings.Join(s.command, " "), cmd.Process.Pid)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		s.log.drain(errR)
	}()
	go p.conn.readLoop(outR)
	go s.reap(p, outR, errR, stderrDone)
	return p, nil
}

// reap waits for the process, clears its group, drains its pipes and
// fails the calls still waiting on it; an exit the host did not ask for
// is a crash.
func (s *supervisor) reap(p *proc, outR, errR *os.File, stderrDone chan struct{}) {
	// Keep the leader a zombie while its group is killed, so the group
	// id cannot have been reused by a stranger (see childproc.AwaitExit).
	reaped, err := childproc.AwaitExit(p.cmd)
	if !reaped {
		p.signal(true)
	}
	p.mu.Lock()
	if reaped {
		signalGroup(p.cmd, true)
	} else {
		err = p.cmd.Wait()
	}
	p.exitErr, p.reaped = err, true
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
	how := exitText(err)
	if killedBy != "" {
		how = "killed by the host: " + killedBy
	}
	s.log.printf("exited: %s", how)
	hint := s.log.stderrHint()
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

// crashedLocked counts a crash (or failed start), sets the backoff and,
// at the limit, quarantines the addon, returning the new quarantine for
// [supervisor.quarantined]; s.mu is held.
func (s *supervisor) crashedLocked(why string) *Quarantine {
	if s.closed || !s.loaded {
		// Before the addon is registered, a failure is its load fault;
		// counting it would turn a few runs of addons check into a
		// quarantine that hides the real message.
		return nil
	}
	now := time.Now()
	wasQuarantined := s.rec.Quarantined.active(now)
	backoff := s.rec.noteCrash(now, why)
	s.notBefore = now.Add(backoff)
	s.saveLocked()
	s.log.printf("crash %d within %v (%s); next start not before %s", len(s.rec.Crashes), CrashWindow, why, s.notBefore.Format(time.StampMilli))
	if q := s.rec.Quarantined; !wasQuarantined && q.active(now) {
		s.log.printf("quarantined: %s", q.Reason)
		return q
	}
	return nil
}

// quarantined reports a new quarantine (nil: none); s.mu is not held.
func (s *supervisor) quarantined(q *Quarantine) {
	if q != nil {
		s.fault(addons.HandlerFault, fmt.Sprintf("quarantined after %s; it is not started again until its files change or %v pass, so its gates refuse calls (unless on_error = \"allow\") and its other handlers are skipped", q.Reason, QuarantinePeriod), nil)
	}
}

func (s *supervisor) saveLocked() {
	if err := writeRecord(s.statePath, s.rec); err != nil {
		s.log.printf("could not save the addon's record: %v", err)
	}
}

// call runs one request within the per-call timeout. A timeout is
// followed by a ping; an addon that does not answer it is taken for hung,
// killed, and restarted on next use.
func (s *supervisor) call(ctx context.Context, method string, params, out any) error {
	p, err := s.get(ctx)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err = p.conn.call(cctx, method, params, out)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("%s was cancelled: %w", method, ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		s.probe(p)
		return fmt.Errorf("%s got no answer within %v (the [process] timeout)", method, s.timeout)
	}
	return err
}

// notify sends a notification, starting the process if need be.
func (s *supervisor) notify(ctx context.Context, method string, params any) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	p, err := s.get(ctx)
	if err != nil {
		return err
	}
	return p.conn.notify(ctx, method, params)
}

// probe pings p in the background and kills it when it does not answer.
func (s *supervisor) probe(p *proc) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.probes.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.probes.Done()
		ctx, cancel := context.WithTimeout(context.Background(), pingGrace)
		defer cancel()
		if err := p.conn.call(ctx, MethodPing, struct{}{}, nil); err != nil && p.alive() {
			s.kill(p, fmt.Sprintf("it did not answer ping within %v after a call timed out", pingGrace))
		}
	}()
}

// kill ends p at once; its exit counts as a crash unless p was being
// stopped anyway.
func (s *supervisor) kill(p *proc, why string) {
	p.mu.Lock()
	if p.killedBy == "" {
		p.killedBy = why
	}
	p.mu.Unlock()
	s.log.printf("killing the process: %s", why)
	p.signal(true)
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
			s.log.printf("shutdown: %v", err)
		}
	}
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(stdinGrace):
		p.signal(false)
		select {
		case <-p.exited:
		case <-time.After(termGrace):
			p.signal(true)
		}
	}
	<-p.done
}

// close stops the process, if any, and waits for everything the
// supervisor started.
func (s *supervisor) close() {
	s.mu.Lock()
	s.closed = true
	p := s.cur
	s.cur = nil
	starting := s.starting
	s.mu.Unlock()
	if starting != nil {
		<-starting // get stops what it started once it sees closed
	}
	if p != nil {
		s.stopProc(p)
	}
	s.probes.Wait()
	s.log.close()
}

// fault reports a failure of the addon.
func (s *supervisor) fault(kind addons.FaultKind, msg string, err error) {
	if s.report != nil {
		s.report(&addons.Fault{Kind: kind, Addon: s.id, File: s.file, Msg: msg, Err: err})
	}
}

// status is what listings show.
func (s *supervisor) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{ID: string(s.id), Command: s.command, Log: s.log.path, Crashes: len(s.rec.Crashes), State: "ready", Declared: s.rec.Declarations}
	if q := s.rec.Quarantined; q.active(time.Now()) {
		st.State, st.Why = "quarantined", q
	} else if s.cur != nil && s.cur.alive() {
		st.State, st.PID = "running", s.cur.cmd.Process.Pid
	}
	return st
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ProcessState.String()
	}
	return err.Error()
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
