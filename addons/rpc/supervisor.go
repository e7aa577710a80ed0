package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
)

// ErrQuarantined is the cause (errors.Is) of a call refused because its
// addon is quarantined.
var ErrQuarantined = errors.New("the addon is quarantined")

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
	log       *childlog.Log
	statePath string
	report    func(*addons.Fault)
	sandbox   *jail.Policy // nil: unconfined
	check     func() error // before each start; nil: none

	mu        sync.Mutex
	loaded    bool // registered: from now on a failure to start is a crash
	rec       record
	cur       *proc
	starting  chan struct{} // closed when the start under way ends
	notBefore time.Time     // backoff after a crash
	closed    bool
	probes    sync.WaitGroup
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
				ErrQuarantined, q.Since.Format(time.TimeOnly), q.Reason, q.Since.Add(QuarantinePeriod).Format(time.TimeOnly))
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
			return nil, fmt.Errorf("it did not answer initialize within %v%s", s.startWait, s.log.StderrHint(latestRun))
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
	s.log.Printf("crash %d within %v (%s); next start not before %s", len(s.rec.Crashes), CrashWindow, why, s.notBefore.Format(time.StampMilli))
	if q := s.rec.Quarantined; !wasQuarantined && q.active(now) {
		s.log.Printf("quarantined: %s", q.Reason)
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
		s.log.Printf("could not save the addon's record: %v", err)
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
	s.log.Close()
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
	st := Status{ID: string(s.id), Command: s.command, Log: s.log.Path(), Crashes: len(s.rec.Crashes), State: "ready", Declared: s.rec.Declarations}
	if q := s.rec.Quarantined; q.active(time.Now()) {
		st.State, st.Why = "quarantined", q
	} else if s.cur != nil && s.cur.alive() {
		st.State, st.PID = "running", s.cur.child.Pid()
	}
	return st
}
