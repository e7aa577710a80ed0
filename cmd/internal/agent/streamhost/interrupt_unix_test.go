//go:build unix

package streamhost_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/fakemodel"
)

// interrupt() during a long bash: the command's process is killed, the
// turn still ends in a result, and the app's session goes on to its end.
func TestInterruptLongBash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("bash", `{"command":"echo $$ > pid.txt; exec sleep 120"}`),
		fakemodel.Say("never asked"))
	pidFile := filepath.Join(dir, "pid.txt")
	run := runSDK(t, dir, srv, model, `
let done;
const finished = new Promise((r) => { done = r; });
async function* messages() {
  yield { type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content: 'wait a while' } };
  await finished;
}
const q = query({ prompt: messages(), options: { pathToClaudeCodeExecutable: exe, permissionMode: 'bypassPermissions' } });
const fs = await import('node:fs');
for await (const m of q) {
  log(m);
  if (m.type === 'assistant') {
    while (!fs.existsSync(cwd + '/pid.txt') || fs.readFileSync(cwd + '/pid.txt', 'utf8').trim() === '') await sleep(50);
    log({ interrupt: await q.interrupt() });
  }
  if (m.type === 'result') done();
}`)
	results := run.byType("result")
	if len(results) != 1 || results[0]["is_error"] != true {
		t.Fatalf("results = %v", results)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid.txt = %q", b)
	}
	// The process is gone (killed with its group, then reaped by its
	// parent): it may take a moment on a loaded machine.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the sleep (pid %d) outlived the interrupt", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("the model was called %d times after the interrupt, want none", len(srv.Requests())-1)
	}
}
