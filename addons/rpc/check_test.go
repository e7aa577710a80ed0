package rpc

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/addons"
)

// Options.Check is asked before a process starts, with its manifest; an
// error keeps the process from starting (its code is no longer what was
// approved) and the load fault says why.
func TestCheckBeforeEveryStart(t *testing.T) {
	t.Parallel()
	ws, dir := workspaceWith(t, "ok")
	var mu sync.Mutex
	var asked []string
	var h *addons.Host
	loader := NewLoader(Options{Workspace: ws, Report: func(f *addons.Fault) { h.Report(f) },
		Check: func(file string) error {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, file)
			return nil
		}})
	defer loader.Close()
	h = addons.NewHost(addons.HostOptions{Loader: loader})
	h.LoadAll(context.Background(), addons.Discovery{Workspace: ws})
	if fs := h.Faults(); len(fs) > 0 {
		t.Fatal(fs[0])
	}
	mu.Lock()
	if len(asked) == 0 || asked[0] != filepath.Join(dir, "manifest.toml") {
		t.Errorf("asked %q before the first start", asked)
	}
	mu.Unlock()

	// A check that fails: the process never runs.
	ws2, _ := workspaceWith(t, "ok")
	var h2 *addons.Host
	loader2 := NewLoader(Options{Workspace: ws2, Report: func(f *addons.Fault) { h2.Report(f) },
		Check: func(string) error { return errors.New("its code changed since you approved it") }})
	defer loader2.Close()
	h2 = addons.NewHost(addons.HostOptions{Loader: loader2})
	h2.LoadAll(context.Background(), addons.Discovery{Workspace: ws2})
	fs := h2.Faults()
	if len(fs) == 0 || !strings.Contains(fs[0].Error(), "not started: its code changed since you approved it") {
		t.Errorf("faults %v, want the start refused with the check's reason", fs)
	}
	for _, st := range loader2.Statuses() {
		if st.PID != 0 || st.Declared != nil {
			t.Errorf("status %+v: the refused process ran", st)
		}
	}
}
