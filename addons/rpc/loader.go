package rpc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/addons/policy"
	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/workspace"
)

// EnvAllowVar names the variable through which a user widens the
// environment allow-list for addons: a comma-separated list of names.
const EnvAllowVar = "INDUSR_ADDON_ENV"

// defaultEnv are the variables an addon may ask for without the user
// widening the list: what a program needs to find its tools, its home and
// its locale, and nothing that usually holds a secret.
var defaultEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM"}

// DefaultPolicy is the host policy of a session: the default timeout, no
// file-system grant (a process addon is an ordinary program; the policy
// governs what the host hands it), and the default environment names plus
// those listed in INDUSR_ADDON_ENV.
func DefaultPolicy() policy.Policy {
	p := policy.DenyAll()
	p.Env = slices.Clone(defaultEnv)
	for n := range strings.SplitSeq(os.Getenv(EnvAllowVar), ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(p.Env, n) {
			p.Env = append(p.Env, n)
		}
	}
	return p
}

// Options configure a [Loader].
type Options struct {
	// Workspace keeps the addons' logs and records under its .indusvx;
	// "" keeps none (logs stay in memory, declarations are asked for at
	// every load).
	Workspace string
	// Policy is the host's: its Env is the allow-list a manifest's env
	// must keep to, its Timeout the per-call default. Nil means
	// [DefaultPolicy].
	Policy *policy.Policy
	// Report hears the faults of running addons (timeouts, crashes,
	// refused answers); nil drops them. Wire it to [addons.Host.Report].
	Report func(*addons.Fault)
	// Fallback loads what is not a [process] addon; nil means the Tier-0
	// [manifest.Loader].
	Fallback addons.Loader
	// StartTimeout bounds a process's start and its answer to
	// initialize; zero means [DefaultStartTimeout]. An addon's own longer
	// timeout wins.
	StartTimeout time.Duration
	// Sandbox returns the policy an addon's process runs confined by,
	// given its manifest file and [sandbox] table (nil when it has none);
	// nil, or a nil result, runs it unconfined.
	Sandbox func(file string, grant *manifest.SandboxDecl) *jail.Policy
	// Check, when set, is asked before every start of an addon's process
	// (the first and each restart), given its manifest file: an error
	// says its code is no longer what was approved, and the process is
	// not started.
	Check func(file string) error
}

// DefaultStartTimeout is how long a process has to start and answer
// initialize: an interpreter loading its modules on a busy machine can
// take seconds, which is no reason to refuse its later, quick answers.
const DefaultStartTimeout = 20 * time.Second

// Loader loads Tier-1 addons: a manifest.toml with a [process] table
// becomes an addon whose declarations map onto the addons API and whose
// handlers call its process. Everything else goes to the fallback loader.
// Close stops every process it started.
type Loader struct {
	o    Options
	ward *childproc.Ward

	mu     sync.Mutex
	sups   []*supervisor
	closed bool
}

var _ addons.Loader = (*Loader)(nil)

// NewLoader returns a loader with nothing loaded.
func NewLoader(o Options) *Loader {
	if o.Policy == nil {
		p := DefaultPolicy()
		o.Policy = &p
	}
	if o.Fallback == nil {
		o.Fallback = manifest.Loader{}
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	procs := ""
	if o.Workspace != "" {
		procs = workspace.At(o.Workspace).Procs()
	}
	return &Loader{o: o, ward: childproc.NewWard(procs)}
}

// Load reads the addon at path. A [process] manifest is checked against
// the policy and its declarations are taken from the record of an earlier
// run when the addon has not changed since; otherwise its process is
// started now to answer initialize, and left running for its first use.
func (l *Loader) Load(ctx context.Context, path string) (*addons.Addon, error) {
	file, dir, ok := manifestOf(path)
	if !ok {
		return l.o.Fallback.Load(ctx, path)
	}
	data, err := manifest.ReadFile(file)
	if err != nil {
		return l.o.Fallback.Load(ctx, path)
	}
	d, err := manifest.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if d.Process == nil {
		return l.o.Fallback.Load(ctx, path)
	}
	loadFault := func(line int, msg string, err error) error {
		return &addons.Fault{Kind: addons.LoadFault, Addon: addons.ID(d.ID), File: file, Line: line, Msg: msg, Err: err}
	}
	pr := d.Process
	var env []string
	for _, n := range pr.Env {
		if !l.o.Policy.PermitsEnv(n) {
			return nil, loadFault(pr.EnvLine, fmt.Sprintf("field process.env: %q is not on the host's allow-list %v; remove it, or allow it with %s=%s", n, l.o.Policy.Env, EnvAllowVar, n), nil)
		}
		if v, ok := os.LookupEnv(n); ok {
			env = append(env, n+"="+v)
		}
	}
	// The addon's own policy: the names it asked for, its timeout or the
	// host's.
	own := policy.Policy{Env: slices.Clone(pr.Env), Timeout: pr.Wait}
	if own.Timeout == 0 {
		own.Timeout = l.o.Policy.CallTimeout()
	}
	s := &supervisor{
		id: addons.ID(d.ID), file: file, dir: dir, command: slices.Clone(pr.Command), env: env,
		timeout: own.CallTimeout(), startWait: max(own.CallTimeout(), l.o.StartTimeout), ward: l.ward, report: l.o.Report,
		params: InitializeParams{ProtocolVersion: ProtocolVersion, Addon: addons.ID(d.ID), Workspace: l.o.Workspace,
			Limits: Limits{TimeoutMS: own.CallTimeout().Milliseconds(), Env: own.Env}},
	}
	if l.o.Sandbox != nil {
		s.sandbox = l.o.Sandbox(file, d.Sandbox)
	}
	if l.o.Check != nil {
		s.check = func() error { return l.o.Check(file) }
	}
	if s.params.Limits.Env == nil {
		s.params.Limits.Env = []string{}
	}
	var logs string
	if l.o.Workspace != "" {
		logs = workspace.At(l.o.Workspace).AddonLogs()
		s.statePath = stateFile(workspace.At(l.o.Workspace).AddonState(), d.ID)
	}
	// A log whose file cannot be opened keeps its tail in memory, which is
	// all an error message needs.
	s.log, _ = childlog.Open(logs, d.ID, "host")
	fp := fingerprint(dir, data, pr.Command)
	if s.rec = readRecord(s.statePath); s.rec.Fingerprint != fp {
		s.rec = record{Fingerprint: fp} // a changed addon starts afresh
	}
	decls := s.rec.Declarations
	if q := s.rec.Quarantined; q.active(time.Now()) {
		if decls == nil {
			s.close()
			return nil, loadFault(pr.Line, fmt.Sprintf("quarantined since %s (%s), and no declarations of it are on record; change the addon to lift it", q.Since.Format(time.TimeOnly), q.Reason), nil)
		}
		s.fault(addons.LoadFault, fmt.Sprintf("quarantined since %s (%s): its gates refuse calls (unless on_error = \"allow\") and its other handlers are skipped; any change to its files lifts it, or it ends at %s",
			q.Since.Format(time.TimeOnly), q.Reason, q.Since.Add(QuarantinePeriod).Format(time.TimeOnly)), nil)
	}
	if decls == nil {
		p, err := s.get(ctx)
		if err != nil {
			s.close()
			return nil, loadFault(pr.Line, "its process did not start and initialize", err)
		}
		decls = p.decls
	}
	s.mu.Lock()
	s.loaded = true
	s.mu.Unlock()
	if err := l.adopt(s); err != nil {
		s.close()
		return nil, err
	}
	base := d.Addon()
	if dl, ok := l.o.Fallback.(declarative); ok {
		base = dl.Declarative(file, d) // with the fallback's hooks, say
	}
	onError := pr.OnError
	return &addons.Addon{ID: base.ID, Version: base.Version, Register: func(api addons.API) error {
		if err := base.Register(api); err != nil {
			return err
		}
		s.register(api, decls, onError)
		return nil
	}}, nil
}

// declarative is a fallback that can give the data-only part of a
// manifest ([manifest.Loader] can), so a [process] manifest's
// gates, commands, interceptors and hooks load as they would without it.
type declarative interface {
	Declarative(file string, d *manifest.Descriptor) *addons.Addon
}

// adopt keeps s so Close stops it.
func (l *Loader) adopt(s *supervisor) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errors.New("the loader is closed")
	}
	l.sups = append(l.sups, s)
	return nil
}

// manifestOf returns the manifest and the folder of the addon at path,
// when path is a folder holding manifest.toml or that file itself.
func manifestOf(path string) (file, dir string, ok bool) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		file = filepath.Join(path, addons.ManifestFile)
		if fi, err := os.Stat(file); err != nil || fi.IsDir() {
			return "", "", false
		}
		return file, path, true
	case err == nil && filepath.Base(path) == addons.ManifestFile:
		return path, filepath.Dir(path), true
	case errors.Is(err, fs.ErrNotExist), err != nil:
		return "", "", false
	}
	return "", "", false
}

// Statuses describe the Tier-1 addons loaded, in load order.
func (l *Loader) Statuses() []Status {
	l.mu.Lock()
	sups := slices.Clone(l.sups)
	l.mu.Unlock()
	out := make([]Status, len(sups))
	for i, s := range sups {
		out[i] = s.status()
	}
	return out
}

// Close stops every addon process, gracefully first, and kills what
// escaped their process groups. Loading after Close fails.
func (l *Loader) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	sups := l.sups
	l.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sups {
		wg.Go(s.close)
	}
	wg.Wait()
	l.ward.Close()
	return nil
}
