package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/policy"
	"github.com/indusagi/induscode/tool"
)

// workspaceWith makes a workspace whose .indus/addons/standin holds a
// manifest running the stand-in in mode, with more TOML lines under
// [process].
func workspaceWith(t *testing.T, mode string, process ...string) (ws, addonDir string) {
	t.Helper()
	ws = t.TempDir()
	addonDir = filepath.Join(ws, ".indus", "addons", "standin")
	if err := os.MkdirAll(addonDir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := fmt.Sprintf("id = \"standin\"\nversion = \"0.1.0\"\n\n[process]\ncommand = [%q, %q]\n%s\n", standin, mode, strings.Join(process, "\n"))
	if err := os.WriteFile(filepath.Join(addonDir, "manifest.toml"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, addonDir
}

// faultLog collects faults.
type faultLog struct {
	mu sync.Mutex
	fs []*addons.Fault
}

func (l *faultLog) add(f *addons.Fault) { l.mu.Lock(); l.fs = append(l.fs, f); l.mu.Unlock() }

// has reports whether a fault of the addon contains s.
func (l *faultLog) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.fs {
		if f.Addon == "standin" && strings.Contains(f.Error(), s) {
			return true
		}
	}
	return false
}

func (l *faultLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, f := range l.fs {
		b.WriteString(f.Error() + "\n")
	}
	return b.String()
}

// loaded is a host over one workspace's addons, loaded with a Loader.
type loaded struct {
	loader *Loader
	host   *addons.Host
	bundle *addons.Bundle
	faults *faultLog
}

// load loads ws's addons; the loader is closed at the end of the test.
// A start gets 2s, so a test of a start that hangs is short.
func load(t *testing.T, ws string, grant *policy.Policy) *loaded {
	t.Helper()
	l := &loaded{faults: &faultLog{}}
	var h *addons.Host
	l.loader = NewLoader(Options{Workspace: ws, Policy: grant, StartTimeout: 2 * time.Second, Report: func(f *addons.Fault) { h.Report(f) }})
	h = addons.NewHost(addons.HostOptions{Loader: l.loader})
	h.OnFault(l.faults.add)
	l.host = h
	l.bundle = h.LoadAll(context.Background(), addons.Discovery{Workspace: ws})
	t.Cleanup(func() { l.loader.Close() })
	return l
}

// echo is a tool that returns its input as text.
func echo() tool.Tool {
	return &tool.Func{S: tool.Spec{Name: "echo", InputSchema: tool.EmptyObjectSchema()},
		Fn: func(_ context.Context, in json.RawMessage, _ *tool.Env) tool.Result { return tool.Text(string(in)) }}
}

// callEcho runs echo with the bundle around it.
func (l *loaded) callEcho(ctx context.Context, args string) tool.Result {
	return l.bundle.Wrap(echo()).Run(ctx, json.RawMessage(args), &tool.Env{})
}

// addonTool runs a tool the addon added.
func (l *loaded) addonTool(t *testing.T, name string) tool.Result {
	t.Helper()
	for _, tt := range l.bundle.Tools {
		if tt.Spec().Name == name {
			return tt.Run(context.Background(), json.RawMessage(`{}`), &tool.Env{})
		}
	}
	t.Fatalf("no addon tool %s among %d", name, len(l.bundle.Tools))
	return tool.Result{}
}

func (l *loaded) status(t *testing.T) Status {
	t.Helper()
	st := l.loader.Statuses()
	if len(st) != 1 {
		t.Fatalf("statuses %+v, want one", st)
	}
	return st[0]
}
