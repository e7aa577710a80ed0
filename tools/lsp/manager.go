package lsp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/tool"
)

// Manager runs the language servers of one session: at most one per
// language, started on first need and stopped by Close. It is safe for
// concurrent use.
type Manager struct {
	root string
	cfg  Config

	mu      sync.Mutex
	clients map[string]*client
	faults  map[string]string // language -> why its last start failed
	closed  bool

	stopping sync.WaitGroup // servers replaced after a crash, being stopped
}

// NewManager returns a manager of the servers in cfg for the workspace
// root. Nothing starts until a file of a configured language is synced or
// asked about.
func NewManager(root string, cfg Config) *Manager {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Manager{root: root, cfg: cfg, clients: map[string]*client{}, faults: map[string]string{}}
}

type managerKey struct{}

// Use makes m the manager of env's session: the symbols tool and the
// diagnostics of write and edit ([Diagnose]) find it there, and it is
// closed with the session.
func Use(env *tool.Env, m *Manager) {
	tool.Shared(env, managerKey{}, func() *Manager {
		_ = env.OnClose(m.Close)
		return m
	})
}

// Of returns the manager of env's session, or nil when the session has
// none (language servers are off).
func Of(env *tool.Env) *Manager {
	return tool.Shared(env, managerKey{}, func() *Manager { return nil })
}

// Serves reports whether path's language has a configured server.
func (m *Manager) Serves(path string) bool {
	_, _, ok := m.cfg.languageOf(path)
	return ok
}

// clientFor returns the running server of path's language, starting it if
// needed; ok is false when no server is configured for it.
func (m *Manager) clientFor(path string) (c *client, ok bool, err error) {
	lang, srv, ok := m.cfg.languageOf(path)
	if !ok {
		return nil, false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, true, errors.New("the session has ended")
	}
	if c := m.clients[lang]; c != nil {
		if c.alive() {
			return c, true, nil
		}
		// It crashed, or stopped answering: a new one takes its place.
		m.stopping.Go(c.stop)
		delete(m.clients, lang)
	}
	c, err = startClient(lang, srv, m.root)
	if err != nil {
		m.faults[lang] = err.Error()
		return nil, true, err
	}
	delete(m.faults, lang)
	m.clients[lang] = c
	return c, true, nil
}

// Status describes one language's server for `indusr lsp status`.
type Status struct {
	Language string   `json:"language"`
	Command  string   `json:"command"`
	State    string   `json:"state"` // "running", "starting", "not started", "failed", "not installed"
	Detail   string   `json:"detail,omitempty"`
	PID      int      `json:"pid,omitempty"`
	Files    []string `json:"filetypes"`
}

// Status lists every configured language and its server's state, sorted
// by language.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Status
	for lang, srv := range m.cfg.Servers {
		st := Status{Language: lang, Command: strings.Join(append([]string{srv.Command}, srv.Args...), " "), Files: slices.Clone(srv.Filetypes), State: "not started"}
		if c := m.clients[lang]; c != nil && c.alive() {
			st.PID = c.cmd.Process.Pid
			select {
			case <-c.ready:
				st.State = "running"
				if c.startErr != nil {
					st.State, st.Detail = "failed", c.startErr.Error()
				}
			default:
				st.State = "starting"
			}
		} else if why, bad := m.faults[lang]; bad {
			st.State, st.Detail = "failed", why
		} else if _, err := exec.LookPath(srv.Command); err != nil {
			st.State = "not installed"
			if srv.Install != "" {
				st.Detail = "install it with: " + srv.Install
			}
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Language < out[j].Language })
	return out
}

// Close stops every server the manager started and waits for them.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	clients := m.clients
	m.clients = map[string]*client{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(c.stop)
	}
	wg.Wait()
	m.stopping.Wait()
	return nil
}

// Report is what a change did to one file's diagnostics.
type Report struct {
	Path string
	// Introduced are the problems the change brought; Remaining those the
	// file already had.
	Introduced, Remaining []diagnostic
	// Unavailable says why there are none to show: no answer in time, a
	// server that failed to start or crashed. Empty when the lists hold.
	Unavailable string
	// BeforeUnknown says the server had no answer for the file as it was
	// (it was still starting), so every problem is listed as present.
	BeforeUnknown bool
}

// coldStart is how much longer than Timeout the first change of a session
// may wait for its server to start and load the workspace: a one-shot
// command has no warm server, and without this allowance its edits would
// never show diagnostics. A server that hangs at start costs one edit this
// much, once; the next need starts it again.
const coldStart = 10 * time.Second

// snapshot syncs path's current content with its server and returns the
// diagnostics of that content. It waits at most the configured timeout, and
// coldStart more when the server is still starting; with warmOnly it
// returns nothing at once unless the server is already running (the state
// before a change is worth no wait for a start).
func (m *Manager) snapshot(ctx context.Context, path, text string, warmOnly bool) ([]diagnostic, error) {
	c, ok, err := m.clientFor(path)
	if !ok || err != nil {
		return nil, err
	}
	wait := m.cfg.Timeout
	select {
	case <-c.ready:
	default:
		if warmOnly {
			return nil, errors.New("the server is still starting")
		}
		wait += coldStart
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := c.await(ctx); err != nil {
		return nil, err
	}
	version, seq, err := c.sync(ctx, path, text)
	if err != nil {
		return nil, c.failure("did not take the change", err)
	}
	diags, err := c.diagnosticsOf(ctx, path, version, seq)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("the %s language server sent no diagnostics within %s", c.lang, wait)
	}
	return diags, err
}
