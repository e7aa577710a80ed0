package streamhost_test

import (
	"bufio"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/indusagi/induscode/cmd/internal/agent"
	"github.com/indusagi/induscode/cmd/internal/cli"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testpeer"
)

// TestMain lets the test binary act as indusr and indusr-agent, so the
// SDK drives the real command line built from this tree.
func TestMain(m *testing.M) {
	testpeer.SystemProgramsFirst()
	testscript.Main(m, map[string]func(){
		"indusr":       func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"indusr-agent": func() { os.Exit(agent.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// sdkModule is the Agent SDK's entry point under testdata/npm/agent-sdk.
const sdkModule = "@anthropic-ai/claude-agent-sdk/sdk.mjs"

// sdkRun is one run of a script against the SDK: what it printed (one
// JSON value a line) and the fake model's requests.
type sdkRun struct {
	lines []map[string]any
	srv   *fakemodel.Server
}

// byType returns the messages the SDK yielded of type typ, in order.
func (r sdkRun) byType(typ string) []map[string]any {
	var out []map[string]any
	for _, l := range r.lines {
		if l["type"] == typ {
			out = append(out, l)
		}
	}
	return out
}

// runSDK runs body, a Node module with query, tool, createSdkMcpServer,
// z, exe (the path of indusr), cwd and log (print a value as a line) in
// scope, with the SDK driving indusr in dir against srv; env adds
// variables to the app's environment.
func runSDK(t *testing.T, dir string, srv *fakemodel.Server, model, body string, env ...string) sdkRun {
	t.Helper()
	node := testpeer.Node(t)
	root := filepath.Join(testpeer.Root(), "testdata", "npm", "agent-sdk", "node_modules")
	sdk := filepath.Join(root, filepath.FromSlash(sdkModule))
	if _, err := os.Stat(sdk); err != nil {
		testpeer.Missing(t, "the Claude Agent SDK ("+sdkModule+")", "run ./scripts/test, which runs npm ci --omit=optional in testdata/npm/agent-sdk")
	}
	zod := filepath.Join(root, "zod", "index.js")
	exe, err := exec.LookPath("indusr")
	if err != nil {
		t.Fatal(err)
	}
	script := "import { query, tool, createSdkMcpServer } from " + fileURL(sdk) + ";\n" +
		"import { z } from " + fileURL(zod) + ";\n" +
		"const exe = " + jsString(exe) + ";\nconst cwd = " + jsString(dir) + ";\n" +
		"const log = (v) => console.log(JSON.stringify(v));\n" +
		"const sleep = (ms) => new Promise((r) => setTimeout(r, ms));\n" + body + "\n"
	path := filepath.Join(t.TempDir(), "app.mjs")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(dir, ".xdg"), "INDUSR_NO_LSP=1", "INDUSR_MODEL="+model,
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+srv.URL,
		"OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.URL+"/v1")
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the app failed: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	run := sdkRun{srv: srv}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("the app printed a line that is not JSON: %q", sc.Text())
		}
		run.lines = append(run.lines, m)
	}
	if t.Failed() || len(run.byType("result")) == 0 || os.Getenv("SDK_SHOW") != "" {
		t.Logf("app stdout:\n%s\nstderr:\n%s", out, stderr.String())
	}
	return run
}

func fileURL(p string) string {
	return jsString((&url.URL{Scheme: "file", Path: p}).String())
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// requestHas reports whether the fake model's request n holds text.
func requestHas(srv *fakemodel.Server, n int, text string) bool {
	reqs := srv.Requests()
	return n < len(reqs) && strings.Contains(string(reqs[n].Body), text)
}

// The SDK README's own example, unchanged but for the path of indusr, on
// an Anthropic and on an OpenAI-compatible model: the messages end in a
// successful result carrying the model's answer.
func TestReadmeExample(t *testing.T) {
	for _, model := range []string{"anthropic/claude-test", "openai/gpt-test"} {
		t.Run(model, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			srv := fakemodel.Start(t, fakemodel.Say("Hello from the model."))
			run := runSDK(t, dir, srv, model, `
for await (const message of query({
  prompt: 'Say hello',
  options: { pathToClaudeCodeExecutable: exe },
})) { log(message) }`)
			results := run.byType("result")
			if len(results) != 1 || results[0]["subtype"] != "success" || results[0]["result"] != "Hello from the model." {
				t.Fatalf("results = %v", results)
			}
			if len(run.byType("assistant")) == 0 || len(run.byType("system")) == 0 {
				t.Errorf("no system/init or assistant message: %v", run.lines)
			}
			if !requestHas(srv, 0, "Say hello") {
				t.Errorf("the model was not asked the prompt")
			}
		})
	}
}
