package shell

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/internal/termtext"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell/output"
	"github.com/indusagi/induscode/workspace"
)

// MaxRunning bounds the background processes one session may run at once,
// so a looping model cannot fork-bomb the machine; 32 is far more than a
// dev server, a watcher and a test run need.
const MaxRunning = 32

// maxKept bounds the table, finished processes included; the oldest
// finished ones are forgotten first (their capture files stay).
const maxKept = 128

// logRetention is how old a file in the engine's folder may grow before an engine
// that opens the directory deletes it; a week keeps yesterday's logs
// without letting the directory grow forever.
const logRetention = 7 * 24 * time.Hour

// ErrClosed is returned once the session that owns an engine has ended.
var ErrClosed = errors.New("the session has ended; its processes were stopped")

// Engine runs the commands of one session: background processes, which it
// keeps in a table until the session ends, and the foreground commands of
// bash, which it tracks while they run. [Engine.Close] stops them all.
type Engine struct {
	dir  string
	ward *childproc.Ward // marks, records and finally kills the children

	// create opens a new output file in dir; tests swap it to measure
	// memory without writing gigabytes to disk.
	create func(name string) (io.WriteCloser, string, error)
	// spillCap caps each output file: MaxSpillBytes, smaller in tests.
	spillCap int64

	mu     sync.Mutex
	closed bool
	next   int
	procs  []*Proc
	fg     map[*group]struct{}

	dirOnce sync.Once
	dirErr  error

	envHook func(map[string]string) map[string]string // see PrepareEnv
	sandbox *jail.Policy                              // see Confine
}

// Proc is one background process of an engine.
type Proc struct {
	ID      string
	Command string
	Dir     string
	g       *group
	out     *stream   // stdout; with a terminal, its raw output
	err     *stream   // stderr; nil with a terminal (it shares stdout)
	term    *terminal // the terminal, if the process has one
	in      *inputEnd
	note    *notifier
}

// StartOptions say how [Engine.StartWith] runs a command.
type StartOptions struct {
	// Terminal runs the command in a pseudo-terminal of Cols x Rows
	// (zero: DefaultCols x DefaultRows), for programs that prompt or
	// draw only on a terminal.
	Terminal   bool
	Cols, Rows int
}

type engineKey struct{}

// EngineOf returns the engine of the session env belongs to, creating it on
// first use; it is closed, and everything it started stopped, when the
// session's Env is closed.
func EngineOf(env *tool.Env) *Engine {
	return tool.Shared(env, engineKey{}, func() *Engine {
		l := workspace.At(env.Dir)
		// A session start: first kill what sessions killed with SIGKILL
		// left running in this workspace.
		childproc.Reap(l.Procs())
		e := NewEngine(l.Background())
		e.ward = childproc.NewWard(l.Procs())
		_ = env.OnClose(e.Close) // Close never fails
		return e
	})
}

// NewEngine returns an engine that keeps its output files in dir. The
// directory is made on first need.
func NewEngine(dir string) *Engine {
	e := &Engine{dir: dir, ward: childproc.NewWard(""), fg: make(map[*group]struct{}), spillCap: MaxSpillBytes}
	e.create = e.createFile
	return e
}

// Confine makes the engine start its commands (bash, background
// processes, and [Engine.Exec] calls that bring no policy of their own)
// confined by p; nil starts them unconfined.
func (e *Engine) Confine(p *jail.Policy) {
	e.mu.Lock()
	e.sandbox = p
	e.mu.Unlock()
}

// Sandbox returns the policy set by [Engine.Confine], or nil.
func (e *Engine) Sandbox() *jail.Policy {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sandbox
}

// Dir returns the directory of the engine's output files.
func (e *Engine) Dir() string { return e.dir }

func (e *Engine) createFile(name string) (io.WriteCloser, string, error) {
	e.dirOnce.Do(func() {
		e.dirErr = workspace.MkdirAll(e.dir, 0o700)
		if e.dirErr == nil {
			pruneOld(e.dir, time.Now().Add(-logRetention))
		}
	})
	if e.dirErr != nil {
		return nil, "", e.dirErr
	}
	path := filepath.Join(e.dir, name)
	// Read-write: a capped file reads its ring back to put it in order.
	f, err := workspace.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, "", err
	}
	return output.NewCappedFile(f, path, e.spillCap), path, nil
}

// pruneOld deletes the engine's own files (*.log) last changed before cutoff.
func pruneOld(dir string, cutoff time.Time) {
	entries, err := workspace.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range entries {
		if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".log") {
			continue
		}
		if fi, err := de.Info(); err == nil && fi.ModTime().Before(cutoff) {
			workspace.Remove(filepath.Join(dir, de.Name()))
		}
	}
}

// logOpener returns a function that opens a new log file named
// <prefix>-<ulid>.log in the engine's directory.
func (e *Engine) logOpener(prefix string) func() (io.WriteCloser, string, error) {
	return func() (io.WriteCloser, string, error) {
		return e.create(prefix + "-" + ulid.Make().String() + ".log")
	}
}

// Start runs command in dir as a background process, its standard input a
// pipe that [Engine] input writes to.
func (e *Engine) Start(command, dir string) (*Proc, error) {
	return e.StartWith(command, dir, StartOptions{})
}

// StartWith is Start with options.
func (e *Engine) StartWith(command, dir string, o StartOptions) (*Proc, error) {
	cols, rows := 0, 0
	if o.Terminal {
		var err error
		if cols, rows, err = terminalSize(o.Cols, o.Rows); err != nil {
			return nil, err
		}
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, ErrClosed
	}
	running := 0
	for _, p := range e.procs {
		if p.Running() {
			running++
		}
	}
	if running >= MaxRunning {
		e.mu.Unlock()
		return nil, fmt.Errorf("%d background processes are already running, the most one session may run; stop one first", running)
	}
	e.next++
	id := fmt.Sprintf("p%d", e.next)
	e.mu.Unlock()

	token := ulid.Make().String()
	note := newNotifier()
	names := []string{"stdout", "stderr"}
	if o.Terminal {
		names = []string{"terminal"}
	}
	streams := make([]*stream, len(names))
	for i, name := range names {
		w, path, err := e.create(fmt.Sprintf("%s-%s.%s.log", id, token, name))
		if err != nil {
			// Without a capture file the ring still works; say so later.
			streams[i] = newStream(name, nil, "")
			streams[i].captureErr = err
		} else {
			streams[i] = newStream(name, w, path)
		}
		streams[i].note = note
	}
	p := &Proc{ID: id, Command: command, Dir: dir, out: streams[0], note: note}
	var (
		g     *group
		stdin *os.File
		err   error
	)
	if o.Terminal {
		in := &inputEnd{tty: true}
		p.term = &terminal{raw: streams[0], scr: termtext.New(cols, rows, MaxBufferedLines, func(b []byte) {
			in.answer(b)
		})}
		// The answers go to the terminal once it exists; until then a
		// program has asked nothing.
		in.mu.Lock()
		g, stdin, err = spawnTerminal(e.ward, e.Sandbox(), command, dir, append(e.environ(), "TERM=xterm-256color"), cols, rows, p.term)
		in.f = stdin
		if err != nil {
			in.closed = true
		}
		in.mu.Unlock()
		p.in = in
	} else {
		p.err = streams[1]
		g, stdin, err = spawnPiped(e.ward, e.Sandbox(), command, dir, e.environ(), streams[0], streams[1])
		p.in = &inputEnd{f: stdin}
	}
	if err != nil {
		if p.term != nil {
			p.term.scr.Close()
		}
		for _, s := range streams {
			s.close()
		}
		return nil, err
	}
	p.g = g
	go func() {
		<-g.done
		p.in.close()
	}()
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		g.stop()
		return nil, ErrClosed
	}
	e.procs = append(e.procs, p)
	e.evict()
	e.mu.Unlock()
	return p, nil
}

// evict forgets the oldest finished processes beyond maxKept.
func (e *Engine) evict() {
	for i := 0; len(e.procs) > maxKept && i < len(e.procs); {
		if e.procs[i].Running() {
			i++
			continue
		}
		e.procs = slices.Delete(e.procs, i, i+1)
	}
}

// Lookup finds a background process by id ("p3"; "3" works too).
func (e *Engine) Lookup(id string) (*Proc, error) {
	id = strings.TrimSpace(id)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.procs {
		if p.ID == id || p.ID == "p"+id {
			return p, nil
		}
	}
	if id == "" {
		return nil, errors.New("id is required; use the id that start returned (list shows them all)")
	}
	if len(e.procs) == 0 {
		return nil, fmt.Errorf("no background process %q: none has been started in this session", id)
	}
	ids := make([]string, len(e.procs))
	for i, p := range e.procs {
		ids[i] = p.ID
	}
	return nil, fmt.Errorf("no background process %q; known ids: %s", id, strings.Join(ids, ", "))
}

// List returns the background processes in start order.
func (e *Engine) List() []*Proc {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.procs)
}

// runForeground starts command for bash, with stdout and stderr merged
// into s, and tracks it so Close can stop it. Call untrack when it is done.
func (e *Engine) runForeground(command, dir string, s sink) (*group, error) {
	return e.runForegroundArgs(command, nil, dir, s)
}

// runForegroundArgs is runForeground with positional parameters (see
// spawnArgs) and any number of sinks.
func (e *Engine) runForegroundArgs(command string, args []string, dir string, s ...sink) (*group, error) {
	return e.runForegroundInput(command, args, dir, ExecInput{}, s...)
}

// runForegroundInput is runForegroundArgs with standard input and more
// environment variables (see ExecInput).
func (e *Engine) runForegroundInput(command string, args []string, dir string, in ExecInput, s ...sink) (*group, error) {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	sandbox := in.Sandbox
	if sandbox == nil {
		sandbox = e.Sandbox()
	}
	g, err := spawnArgs(e.ward, sandbox, command, args, dir, append(e.environ(), in.Env...), in.Stdin, s...)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		g.stop()
		return nil, ErrClosed
	}
	e.fg[g] = struct{}{}
	e.mu.Unlock()
	return g, nil
}

func (e *Engine) untrack(g *group) {
	e.mu.Lock()
	delete(e.fg, g)
	e.mu.Unlock()
}

// Close stops every process the engine started, foreground and
// background: SIGTERM to every group at once, SIGKILL to those still alive
// after StopGrace. It returns when every group has been killed, its output
// closed and its leader reaped (the kernel may still be tearing down the
// last members). Later starts fail with ErrClosed. Close always returns
// nil; it has the shape of io.Closer.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	var groups []*group
	for _, p := range e.procs {
		groups = append(groups, p.g)
	}
	for g := range e.fg {
		groups = append(groups, g)
	}
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Go(g.stop)
	}
	wg.Wait()
	// What left its group (setsid) was not reached by the group signals.
	e.ward.Close()
	return nil
}

// Running reports whether the process is still running.
func (p *Proc) Running() bool {
	select {
	case <-p.g.done:
		return false
	default:
		return true
	}
}

// PID returns the process id of the group leader.
func (p *Proc) PID() int { return p.g.pid }

// Started returns when the process started.
func (p *Proc) Started() time.Time { return p.g.started }

// Done is closed once the process has ended and its output is complete.
func (p *Proc) Done() <-chan struct{} { return p.g.done }

// Stop ends the process: SIGTERM to its group, SIGKILL after StopGrace.
// It returns once the process is gone.
func (p *Proc) Stop() { p.g.stop() }

// PrepareEnv sets fn to adjust the environment of every command the
// engine starts from now on (bash, background processes, Exec): fn gets
// the variables by name and returns those to use. The session wires the
// addons' shell:env event here. A fn that panics leaves the environment
// as it was.
func (e *Engine) PrepareEnv(fn func(env map[string]string) map[string]string) {
	e.mu.Lock()
	e.envHook = fn
	e.mu.Unlock()
}

// environ is the environment of the next command.
func (e *Engine) environ() []string {
	e.mu.Lock()
	hook := e.envHook
	e.mu.Unlock()
	base := baseEnv()
	if hook == nil {
		return base
	}
	m := make(map[string]string, len(base))
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	out, ok := callHook(hook, m)
	if !ok {
		return base
	}
	env := make([]string, 0, len(out))
	for k, v := range out {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}

func callHook(hook func(map[string]string) map[string]string, m map[string]string) (out map[string]string, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	return hook(m), true
}
