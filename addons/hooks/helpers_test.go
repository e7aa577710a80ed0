package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell"
)

// TestMain fails the package when a test leaves a goroutine behind: every
// hook is a process with goroutines reading its output.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rig is a workspace with hooks wrapped around a recording tool, through
// a real addons host and bundle, run by a real shell engine.
type rig struct {
	dir    string
	faults *faultLog
	bundle *addons.Bundle
	ran    atomic.Int32
	args   atomic.Value // json.RawMessage of the last run
	mu     sync.Mutex
	sent   []string // what the hooks sent through send_message
}

func (r *rig) messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.sent...)
}

type faultLog struct {
	mu sync.Mutex
	fs []*addons.Fault
}

func (l *faultLog) add(f *addons.Fault) { l.mu.Lock(); l.fs = append(l.fs, f); l.mu.Unlock() }

func (l *faultLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var sb strings.Builder
	for _, f := range l.fs {
		sb.WriteString(f.Error() + "\n")
	}
	return sb.String()
}

// newRig loads hooks (built by mk, with files written under the
// workspace first) as addon "guard".
func newRig(t *testing.T, files map[string]string, hooks ...Hook) *rig {
	t.Helper()
	r := &rig{dir: t.TempDir(), faults: &faultLog{}}
	for name, body := range files {
		p := filepath.Join(r.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	eng := shell.NewEngine(t.TempDir())
	t.Cleanup(func() { eng.Close() })
	send := func(_ context.Context, text string) error {
		r.mu.Lock()
		r.sent = append(r.sent, text)
		r.mu.Unlock()
		return nil
	}
	h := addons.NewHost(addons.HostOptions{Handles: &addons.Handles{SendMessage: send}})
	h.LoadAddon(Addon("guard", hooks, Options{Dir: r.dir, SessionID: func() string { return "s-1" }, Runner: eng, Report: r.faults.add}))
	r.bundle = h.Bundle()
	return r
}

// call runs tool name with args through the hooks.
func (r *rig) call(ctx context.Context, name, args string) tool.Result {
	t := r.bundle.Wrap(&tool.Func{S: tool.Spec{Name: name, InputSchema: tool.EmptyObjectSchema()},
		Fn: func(_ context.Context, in json.RawMessage, _ *tool.Env) tool.Result {
			r.ran.Add(1)
			r.args.Store(in)
			return tool.Text("tool ran with " + string(in))
		}})
	return t.Run(ctx, json.RawMessage(args), nil)
}

func (r *rig) lastArgs() string {
	v, _ := r.args.Load().(json.RawMessage)
	return string(v)
}

func mustHook(t *testing.T, event, matcher, command string, timeout time.Duration) Hook {
	t.Helper()
	h, err := New(event, matcher, command, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
