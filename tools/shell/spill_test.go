package shell

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

// A command that prints more than MaxSpillBytes leaves a log of about that
// size, not of everything it printed: the first half, a line saying what
// was cut, and the newest half. The result says so. Background captures
// are capped the same way.
func TestSpillFilesAreCapped(t *testing.T) {
	t.Parallel()
	if e := NewEngine(t.TempDir()); e.spillCap != MaxSpillBytes || MaxSpillBytes != 64<<20 {
		t.Fatalf("the default cap is %d, want 64 MiB", e.spillCap)
	}
	// A 1 MiB cap in place of the 64 MiB default keeps the test's disk
	// traffic small; the code path is the same.
	const spillCap = 1 << 20
	const printed = spillCap + 200<<10
	// Numbered 16-byte records (15 digits + newline) show which bytes a
	// file kept: the head from record 0, the tail up to the last one.
	gen := fmt.Sprintf("seq -f '%%015.0f' 0 %d", printed/16-1)
	cases := []struct {
		name string
		run  func(t *testing.T) (result, path string)
	}{
		{"bash", func(t *testing.T) (string, string) {
			env := smallCapSession(t, spillCap)
			r := call(t, BashTool(), env, map[string]any{"command": gen, "timeout_ms": 120000})
			out := text(r)
			m := regexp.MustCompile(`(/\S+\.log) keeps only the first`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("the result does not say the log was capped:\n%s", out[max(0, len(out)-300):])
			}
			return out, m[1]
		}},
		{"process", func(t *testing.T) (string, string) {
			env := smallCapSession(t, spillCap)
			r := call(t, ProcessTool(), env, map[string]any{"action": "start", "command": gen})
			if r.IsError {
				t.Fatal(text(r))
			}
			p, err := EngineOf(env).Lookup("p1")
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-p.Done():
			case <-time.After(2 * time.Minute):
				t.Fatal("the process did not finish")
			}
			out := text(call(t, ProcessTool(), env, map[string]any{"action": "output", "id": "p1"}))
			m := regexp.MustCompile(`(/\S+stdout\.log) keeps only the first`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("the output does not say the capture was capped:\n%s", out[max(0, len(out)-600):])
			}
			return out, m[1]
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, path := c.run(t)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() > spillCap+200 {
				t.Errorf("%s is %d bytes, over the %d cap", filepath.Base(path), fi.Size(), spillCap)
			}
			f, _ := os.Open(path)
			defer f.Close()
			head := make([]byte, 32)
			f.Read(head)
			if !bytes.HasPrefix(head, []byte("000000000000000\n000000000000001\n")) {
				t.Errorf("the file does not start with the first output: %q", head)
			}
			tail := make([]byte, 32)
			f.ReadAt(tail, fi.Size()-32)
			want := fmt.Sprintf("%015d\n%015d\n", printed/16-2, printed/16-1)
			if string(tail) != want {
				t.Errorf("the file does not end with the newest output: %q, want %q", tail, want)
			}
			mid := make([]byte, 400)
			f.ReadAt(mid, spillCap/2-100)
			if !strings.Contains(string(mid), "bytes omitted") {
				t.Errorf("no marker where the output was cut: %q", mid)
			}
		})
	}
}

// smallCapSession is a session whose engine caps output files at spillCap.
func smallCapSession(t *testing.T, spillCap int64) *tool.Env {
	env := session(t)
	tool.Shared(env, engineKey{}, func() *Engine {
		e := NewEngine(workspace.At(env.Dir).Background())
		e.spillCap = spillCap
		_ = env.OnClose(e.Close)
		return e
	})
	return env
}

// Output files older than a week are pruned when a session first writes
// one; newer ones and files that are not the engine's stay.
func TestOldLogsArePruned(t *testing.T) {
	t.Parallel()
	env := session(t)
	dir := EngineOf(env).Dir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	week := time.Now().Add(-logRetention - time.Hour)
	files := map[string]bool{ // name -> kept
		"p1-old.stdout.log": false,
		"bash-old.log":      false,
		"p1-new.stdout.log": true,
		"notes.txt":         true,
	}
	for name, kept := range files {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("x"), 0o600)
		if !kept || name == "notes.txt" {
			os.Chtimes(p, week, week)
		}
	}
	if r := call(t, ProcessTool(), env, map[string]any{"action": "start", "command": "true"}); r.IsError {
		t.Fatal(text(r))
	}
	for name, kept := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if kept != (err == nil) {
			t.Errorf("%s: kept %v, want %v", name, err == nil, kept)
		}
	}
}
