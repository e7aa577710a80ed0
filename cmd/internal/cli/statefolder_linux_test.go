package cli_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/indusagi/induscode/cmd/internal/agent"
	"github.com/indusagi/induscode/cmd/internal/cli"
	"github.com/indusagi/induscode/internal/fakemodel"
)

// stateEntries are what a clone can plant under .indusvx ("" is the
// folder itself); a plan picks entries and what each becomes.
var stateEntries = []string{
	"", "bg", "sessions", "sessions/s.json", "locks", "procs", "checkpoints", "checkpoints/index.json",
	"checkpoints/blobs", "mcp-cache", "mcp-logs", "addon-logs", "addon-state", "downloads", "plans",
	"tmp", "logs", "memory.md", "ledger.jsonl", "mcp.json",
	"settings.json", "transcripts", "transcripts/01J00000000000000000000000.jsonl", "index", "quarantine",
}

// plantKinds are what an entry becomes: a link to the outside folder, a
// link to a file outside, a named pipe, a folder or file of another user,
// a link to /dev/zero (endless).
var plantKinds = []string{"link-dir", "link-file", "fifo", "foreign-dir", "foreign-file", "link-zero"}

// commands are every command of indusr that touches the state folder.
var commands = [][]string{
	{"tools"},
	{"call", "read", `{"path":"f.txt"}`},
	{"call", "bash", `{"command":"cat f.txt; seq 1 30000"}`},
	{"call", "write", `{"path":"g.txt","content":"new\n"}`},
	{"--session", "s", "call", "read", `{"path":"f.txt"}`},
	{"rewind", "list"},
	{"mcp", "status"},
	{"mcp", "ledger"},
	{"addons", "list"},
	{"hooks", "list"},
	{"transcripts"},
	{"index", "status"},
	{"lsp", "status"},
	{"sandbox", "check"},
	{"-p", "hi", "--model", "anthropic/claude-sonnet-4-5"},
	{"-p", "again", "--continue", "--model", "anthropic/claude-sonnet-4-5"},
}

// Whatever a clone plants under .indusvx (links out of the workspace or
// to /dev/zero, named pipes, files of another user), no command writes
// outside the workspace, none waits on a pipe and none reads without end. The plan is two bytes per planted
// entry: which entry, and what it becomes.
func FuzzStateFolderPlants(f *testing.F) {
	for _, seed := range []string{
		"\x00\x00",         // .indusvx is a link to a folder outside
		"\x01\x00\x0f\x01", // bg and ledger.jsonl are links out
		"\x02\x00\x04\x00\x0c\x00\x0d\x00\x0e\x00", // sessions, procs, addon-logs, downloads, plans
		"\x11\x01\x12\x01\x13\x02\x03\x02",         // memory.md, ledger.jsonl links; mcp.json and sessions/s.json pipes
		"\x05\x00\x06\x01\x07\x02\x08\x03\x09\x04", // checkpoints in every way
		"\x01\x03\x04\x03\x0a\x04\x00\x04",         // other users' bg, procs; a foreign .indusvx
		"\x14\x05\x15\x00\x17\x02\x18\x03",         // settings.json endless, transcripts out, index a pipe, a foreign quarantine
		"\x14\x02\x16\x05",                         // settings.json a pipe, a transcript endless
		"\x15\x03\x14\x01",                         // a foreign transcripts folder, settings.json a link out
		"\x15\x00\x17\x02",                         // transcripts a link out, index a pipe
		"\x16\x05\x18\x04",                         // a transcript endless, quarantine a foreign file
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, plan []byte) {
		ws, out := t.TempDir(), t.TempDir()
		must(t, os.WriteFile(filepath.Join(ws, "f.txt"), []byte("notes\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(out, "victim"), []byte("mine\n"), 0o644))
		state := filepath.Join(ws, ".indusvx")
		for i := 0; i+1 < len(plan) && i < 16; i += 2 {
			entry := stateEntries[int(plan[i])%len(stateEntries)]
			plant(t, filepath.Join(state, entry), plantKinds[int(plan[i+1])%len(plantKinds)], out)
		}
		before := snapshot(t, out)
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		model := fakemodel.Start(t)
		model.Respond(func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Say("ok") })
		t.Setenv("ANTHROPIC_API_KEY", "test")
		t.Setenv("ANTHROPIC_BASE_URL", model.URL)
		for _, args := range commands {
			done := make(chan struct{})
			var stderr bytes.Buffer
			go func() {
				defer close(done)
				// -p runs in process through the agent's own Main: indusr's
				// would exec indusr-agent in place of the test binary.
				run := cli.Main
				if args[0] == "-p" {
					run = agent.Main
				}
				run(append([]string{"-C", ws, "--no-addons"}, args...), strings.NewReader(""), io.Discard, &stderr)
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatalf("indusr %s hangs", strings.Join(args, " "))
			}
			if after := snapshot(t, out); after != before {
				t.Fatalf("indusr %s wrote outside the workspace:\nbefore %s\nafter  %s\nstderr %s", strings.Join(args, " "), before, after, stderr.String())
			}
		}
	})
}

// plant makes path (made a fresh entry) into kind.
func plant(t *testing.T, path, kind, out string) {
	if _, err := os.Lstat(path); err == nil {
		return // planted already, or inside something planted
	}
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return // a parent is a file or pipe planted before
	}
	if fi, err := os.Lstat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return
	}
	foreign := func(p string) {
		if os.Geteuid() == 0 {
			must(t, os.Chown(p, 65534, 65534))
		}
	}
	switch kind {
	case "link-dir":
		must(t, os.Symlink(out, path))
	case "link-file":
		must(t, os.Symlink(filepath.Join(out, "victim"), path))
	case "fifo":
		must(t, syscall.Mkfifo(path, 0o666))
	case "foreign-dir":
		must(t, os.Mkdir(path, 0o777))
		foreign(path)
	case "link-zero":
		must(t, os.Symlink("/dev/zero", path))
	case "foreign-file":
		must(t, os.WriteFile(path, nil, 0o666))
		foreign(path)
	}
}

// snapshot describes a folder's entries and contents.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		sb.WriteString(p)
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			sb.WriteString("=" + string(b))
		}
		sb.WriteString(";")
		return nil
	})
	return sb.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
