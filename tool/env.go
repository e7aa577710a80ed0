package tool

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
)

// Env is the environment of one session. The runner hands the same *Env to
// every call of a session, so what one call records (a read, a checklist)
// the next call sees. An Env is safe for concurrent use.
type Env struct {
	// Dir is the absolute working directory; relative paths resolve
	// against it.
	Dir string
	// Roots are the absolute workspace roots that writes are confined to.
	// Dir is always the first.
	Roots []string
	// Reads records what the session has read, for the read-before-edit
	// gate of write and edit.
	Reads *ReadState

	mu     sync.Mutex
	shared map[any]any

	// closeMu guards closers apart from mu, so the mk of Shared (which
	// runs under mu) may call OnClose.
	closeMu sync.Mutex
	closers []func() error
	closed  bool
}

// NewEnv returns the environment of a new session rooted at dir, with extra
// workspace roots. dir is made absolute; a relative root resolves against it.
func NewEnv(dir string, roots ...string) *Env {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	e := &Env{Dir: abs, Roots: []string{abs}, Reads: NewReadState()}
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			r = filepath.Join(abs, r)
		}
		e.Roots = append(e.Roots, filepath.Clean(r))
	}
	return e
}

// Shared returns the session's value under key, creating it with mk on first
// use. Tools that share state within a session (todo_read and todo_set share
// one checklist) meet here; key should be an unexported type of the owning
// package so no one else can collide with it.
func Shared[T any](env *Env, key any, mk func() T) T {
	env.mu.Lock()
	defer env.mu.Unlock()
	if v, ok := env.shared[key]; ok {
		return v.(T)
	}
	if env.shared == nil {
		env.shared = make(map[any]any)
	}
	v := mk()
	env.shared[key] = v
	return v
}

// OnClose registers f to run when the session ends ([Env.Close]). Tools that
// start things which outlive a call, such as background processes, register
// their cleanup here, usually once from the mk of [Shared]. If the session
// has already ended, f runs at once so nothing it guards is left behind.
func (e *Env) OnClose(f func() error) error {
	e.closeMu.Lock()
	if !e.closed {
		e.closers = append(e.closers, f)
		e.closeMu.Unlock()
		return nil
	}
	e.closeMu.Unlock()
	return f()
}

// Close ends the session: it runs every function registered with
// [Env.OnClose], latest first, and returns their errors joined. Only the
// first call does anything; later ones return nil.
func (e *Env) Close() error {
	e.closeMu.Lock()
	fs := e.closers
	e.closers, e.closed = nil, true
	e.closeMu.Unlock()
	var errs []error
	for i := len(fs) - 1; i >= 0; i-- {
		if err := fs[i](); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Progress is a callback that receives progress of a long call: work done,
// total work (0 when unknown) and a short message.
type Progress func(done, total float64, message string)

type progressKey struct{}

// WithProgress returns a context that carries p; tools report to it with
// [ReportProgress]. Progress is per call, so it rides on the context, not the
// shared Env.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ReportProgress sends progress to the callback carried by ctx, if any.
func ReportProgress(ctx context.Context, done, total float64, message string) {
	if p, ok := ctx.Value(progressKey{}).(Progress); ok && p != nil {
		p(done, total, message)
	}
}
