package conductor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/facts"
	"github.com/indusagi/induscode/transcript"
	"github.com/indusagi/induscode/workspace"
)

// summaryAsked is how the tests tell a summary request: its last message
// asks for one.
const summaryAsked = "The conversation is about to be compacted"

// sent is the part of an Anthropic request body the tests look at.
type sent struct {
	System   json.RawMessage `json:"system"`
	Tools    json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"messages"`
}

func decode(t *testing.T, r fakemodel.Request) sent {
	t.Helper()
	var s sent
	if err := json.Unmarshal(r.Body, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func isSummary(r fakemodel.Request) bool { return strings.Contains(string(r.Body), summaryAsked) }

// lines writes a file of n lines of 100 bytes.
func lines(t *testing.T, path string, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%04d %s\n", i, strings.Repeat("x", 94))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The summary request is the conversation's own request, with the same
// system prompt and tools (Anthropic refuses tool blocks without tool
// definitions) and the question in a final user message.
func TestSummaryRequestKeepsToolsAndSystemPrompt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("read", `{"path":"a.txt"}`)}, InputTokens: 9000},
		fakemodel.Say("Summary: a.txt says alpha."),
		fakemodel.Say("It says alpha."))
	c := open(t, dir, srv, conductor.Options{ContextWindow: 10000})
	res, err := c.Run(context.Background(), "what does a.txt say?")
	if err != nil || res.IsError || res.Text != "It says alpha." {
		t.Fatalf("%+v %v; refusals %q", res, err, srv.Refusals())
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !isSummary(reqs[1]) {
		t.Fatalf("%d requests; the second is a summary request: %v", len(reqs), len(reqs) > 1 && isSummary(reqs[1]))
	}
	first, summary := decode(t, reqs[0]), decode(t, reqs[1])
	if string(summary.Tools) != string(first.Tools) || len(summary.Tools) < 10 {
		t.Errorf("the summary request's tools differ from the conversation's")
	}
	if string(summary.System) != string(first.System) {
		t.Errorf("the summary request's system prompt differs from the conversation's")
	}
	last := summary.Messages[len(summary.Messages)-1]
	if last.Role != "user" || !strings.Contains(last.Content[len(last.Content)-1].Text, summaryAsked) || last.Content[0].Type != "tool_result" {
		t.Errorf("the summary is not asked for after the tool results in the final user message: %+v", last)
	}
}

// Tool results that came in after the last response count: a read that
// fills the window compacts before the next request, though the last
// usage was small.
func TestPendingToolResultsTriggerCompaction(t *testing.T) {
	dir := t.TempDir()
	lines(t, filepath.Join(dir, "big.txt"), 300) // 30 KB, about 10k tokens
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("read", `{"path":"big.txt"}`)}, InputTokens: 1000},
		fakemodel.Say("Summary: big.txt holds 300 numbered lines."),
		fakemodel.Say("300 lines."))
	var compacted int
	c := open(t, dir, srv, conductor.Options{ContextWindow: 12000, OnEvent: func(e conductor.Event) {
		if _, ok := e.(conductor.Compacted); ok {
			compacted++
		}
	}})
	res, err := c.Run(context.Background(), "how long is big.txt?")
	if err != nil || res.IsError || res.Text != "300 lines." {
		t.Fatalf("%+v %v", res, err)
	}
	if reqs := srv.Requests(); len(reqs) != 3 || !isSummary(reqs[1]) || compacted != 1 {
		t.Fatalf("%d requests, %d compactions: the read's result did not count towards the window", len(reqs), compacted)
	}
}

// A request the provider refuses as over its window compacts once and is
// made again; the summary request itself, over the window too, is asked
// with long tool results shortened.
func TestContextOverflowCompactsAndRetries(t *testing.T) {
	for _, api := range []string{"anthropic", "openai", "openai-chat", "gemini"} {
		t.Run(api, func(t *testing.T) {
			dir := t.TempDir()
			lines(t, filepath.Join(dir, "big.txt"), 300)
			srv := fakemodel.Start(t)
			srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
				switch body := string(r.Body); {
				case isSummary(r):
					return fakemodel.Say("Summary: big.txt holds 300 numbered lines.")
				case strings.Contains(body, "Summary: big.txt"):
					return fakemodel.Say("300 lines.")
				}
				srv.SetWindow(r.Tokens + 4000) // the prompt fits, the file does not
				return fakemodel.Call("read", `{"path":"big.txt"}`)
			})
			var notices []string
			c := open(t, dir, srv, conductor.Options{Model: modelOf(api), ContextWindow: 1_000_000, OnEvent: func(e conductor.Event) {
				if n, ok := e.(conductor.Notice); ok {
					notices = append(notices, n.Text)
				}
			}})
			res, err := c.Run(context.Background(), "how long is big.txt?")
			if err != nil || res.IsError || res.Text != "300 lines." {
				t.Fatalf("%+v %v; refusals %q", res, err, srv.Refusals())
			}
			if r := srv.Refusals(); len(r) != 2 {
				t.Errorf("refusals %q, want the turn's and the whole summary request's", r)
			}
			if !strings.Contains(strings.Join(notices, "\n"), "compacted after the model refused it") {
				t.Errorf("notices %q", notices)
			}
		})
	}
}

// A continued conversation near its window compacts before its first
// request (the size was saved with the answer), and the prompt just
// submitted follows the summary verbatim instead of being folded into it.
func TestContinueNearTheWindowCompactsFirst(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("first answer")}, InputTokens: 85000},
		fakemodel.Say("Summary: the first question was answered."),
		fakemodel.Say("second answer"))
	c := open(t, dir, srv, conductor.Options{ContextWindow: 100000})
	if res, err := c.Run(context.Background(), "first question"); err != nil || res.IsError {
		t.Fatal(res, err)
	}
	c.Close()
	_, saved, err := transcript.Open(dir, c.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	if l := saved[len(saved)-1]; l.Usage == nil || l.Usage.InputTokens != 85000 || l.Usage.OutputTokens == 0 {
		t.Fatalf("the answer's line carries usage %+v", l.Usage)
	}
	c2 := open(t, dir, srv, conductor.Options{ContextWindow: 100000, Continue: true})
	res, err := c2.Run(context.Background(), "second question")
	if err != nil || res.IsError || res.Text != "second answer" {
		t.Fatalf("%+v %v; refusals %q", res, err, srv.Refusals())
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !isSummary(reqs[1]) {
		t.Fatalf("%d requests; the first of the continued run asks for a summary: %v", len(reqs), len(reqs) > 1 && isSummary(reqs[1]))
	}
	if strings.Contains(string(reqs[1].Body), "second question") {
		t.Errorf("the new prompt was folded into the summary")
	}
	after := string(reqs[2].Body)
	if !strings.Contains(after, "second question") || !strings.Contains(after, "Summary: the first question") || strings.Contains(after, "first answer") {
		t.Errorf("the request after compaction is not the summary and the new prompt: %s", after)
	}
	c2.Close()
	c3 := open(t, dir, srv, conductor.Options{Continue: true})
	msgs := c3.Messages()
	if len(msgs) != 2 || msgs[0].Role != provider.User || !strings.Contains(msgs[0].Text(), "second question") || msgs[1].Text() != "second answer" {
		t.Errorf("the transcript resumes as %+v", msgs)
	}
}

// A summary cut off at the output limit is refused: the conversation
// stays as it was.
func TestTruncatedSummaryIsRefused(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Say("hello"), fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("Summary: the user said hi and")}, Stop: "max_tokens"})
	c := open(t, t.TempDir(), srv, conductor.Options{})
	if _, err := c.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	err := c.Compact(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cut off") {
		t.Fatalf("compaction: %v", err)
	}
	if msgs := c.Messages(); len(msgs) != 2 || msgs[1].Text() != "hello" {
		t.Errorf("the conversation changed: %+v", msgs)
	}
}

// A transcript that cannot take the summary fails the run at once: the
// conversation would otherwise go on with a history the file lacks.
func TestTranscriptErrorInCompactionFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("ls", `{}`)}, InputTokens: 9000},
		fakemodel.Say("Summary: the folder was listed."),
		fakemodel.Say("never"))
	var c *conductor.Conductor
	var once sync.Once
	breaker := &addons.Addon{ID: "breaker", Register: func(api addons.API) error {
		api.On(addons.CompactBefore, addons.Observer(func(context.Context, addons.Payload) {
			once.Do(func() {
				path := filepath.Join(workspace.At(dir).Transcripts(), c.SessionID()+".jsonl")
				if err := os.Remove(path); err != nil {
					t.Error(err)
				}
				os.Mkdir(path, 0o755) // appends now fail
			})
		}))
		return nil
	}}
	c = open(t, dir, srv, conductor.Options{ContextWindow: 10000}, breaker)
	_, err := c.Run(context.Background(), "list")
	if err == nil {
		t.Fatal("the run went on without its transcript")
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests: the run called the model after the summary could not be saved", n)
	}
}

// The acceptance conversation: 60 turns, each reading a 30 KB file, on a
// model with a 100k window that refuses what is over it. It completes
// with at least two compactions and no refusal, and a --continue of it
// near the window compacts before its first request.
func TestLongConversationStaysInItsWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("60 turns")
	}
	dir := t.TempDir()
	const turns = 60
	for i := range turns {
		lines(t, filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), 300)
	}
	srv := fakemodel.Start(t)
	srv.SetWindow(100_000)
	var mu sync.Mutex
	answered := 0
	srv.Respond(func(_ int, r fakemodel.Request) fakemodel.Reply {
		if isSummary(r) {
			return fakemodel.Say("Summary: files were read one by one; keep reading the next.")
		}
		mu.Lock()
		defer mu.Unlock()
		answered++
		if answered == turns {
			// The provider counts the conversation near the window.
			return fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("all read")}, InputTokens: 95_000}
		}
		return fakemodel.Call("read", fmt.Sprintf(`{"path":"f%02d.txt"}`, answered-1))
	})
	compactions := 0
	count := func(e conductor.Event) {
		if _, ok := e.(conductor.Compacted); ok {
			compactions++
		}
	}
	c := open(t, dir, srv, conductor.Options{Mode: conductor.BypassPermissions, ContextWindow: 100_000, OnEvent: count})
	res, err := c.Run(context.Background(), "read every file")
	if err != nil || res.IsError || res.Text != "all read" || res.Turns != turns {
		t.Fatalf("%+v %v; refusals %q", res, err, srv.Refusals())
	}
	if r := srv.Refusals(); len(r) != 0 || compactions < 2 {
		t.Fatalf("%d compactions, refusals %q", compactions, r)
	}
	t.Logf("%d turns, %d compactions, %d requests", res.Turns, compactions, len(srv.Requests()))
	c.Close()

	before := len(srv.Requests())
	compactions = 0
	c2 := open(t, dir, srv, conductor.Options{Continue: true, Mode: conductor.BypassPermissions, ContextWindow: 100_000, OnEvent: count})
	answered = turns - 1
	if res, err := c2.Run(context.Background(), "one more"); err != nil || res.IsError {
		t.Fatalf("%+v %v", res, err)
	}
	if reqs := srv.Requests(); !isSummary(reqs[before]) || compactions != 1 || len(srv.Refusals()) != 0 {
		t.Errorf("the continued conversation's first request is a summary request: %v (%d compactions)", isSummary(reqs[before]), compactions)
	}
}

// When what no summary shortens (briefing, tools) fills the window, one
// compaction says so and the next calls are not compacted again: a loop
// of summaries would never end.
func TestCompactionThatCannotHelpIsNotRepeated(t *testing.T) {
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("ls", `{}`)}, InputTokens: 9000},
		fakemodel.Say("Summary: the folder was listed."),
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("ls", `{}`)}, InputTokens: 9000},
		fakemodel.Say("done"))
	var compactions int
	var notices []string
	c := open(t, t.TempDir(), srv, conductor.Options{ContextWindow: 10000, OnEvent: func(e conductor.Event) {
		switch e := e.(type) {
		case conductor.Compacted:
			compactions++
		case conductor.Notice:
			notices = append(notices, e.Text)
		}
	}})
	res, err := c.Run(context.Background(), "list twice")
	if err != nil || res.IsError || res.Text != "done" || compactions != 1 {
		t.Fatalf("%+v %v; %d compactions", res, err, compactions)
	}
	if !strings.Contains(strings.Join(notices, "\n"), "still near the model's context window") {
		t.Errorf("notices %q", notices)
	}
}

// A local model's window is what its server runs it with: Ollama's
// /api/show says num_ctx, and compaction comes before the conversation
// outgrows it (128k was assumed, where Ollama cuts the prompt silently).
func TestLocalServerTellsTheWindow(t *testing.T) {
	dir := t.TempDir()
	lines(t, filepath.Join(dir, "mid.txt"), 200) // 20 KB
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("read", `{"path":"mid.txt"}`)}, InputTokens: 12000},
		fakemodel.Say("Summary: mid.txt holds 200 numbered lines."),
		fakemodel.Say("200 lines."))
	srv.SetWindow(20000)
	c := open(t, dir, srv, conductor.Options{Model: "ollama/qwen3:8b"})
	res, err := c.Run(context.Background(), "how long is mid.txt?")
	if err != nil || res.IsError || res.Text != "200 lines." {
		t.Fatalf("%+v %v; refusals %q", res, err, srv.Refusals())
	}
	if reqs := srv.Requests(); len(reqs) != 3 || !isSummary(reqs[1]) {
		t.Errorf("%d requests; the second is a summary request: %v", len(reqs), len(reqs) > 1 && isSummary(reqs[1]))
	}
}

// A window the user gives a model in settings (the "models" override of
// the catalog) is the one compaction keeps to, for a cloud model the
// catalog lists (Sonnet's 200k corrected down) and for a local model
// over what its server says.
func TestSettingsWindowOverride(t *testing.T) {
	for _, model := range []string{"anthropic/claude-sonnet-4-5", "ollama/qwen3:8b"} {
		t.Run(model, func(t *testing.T) {
			dir := t.TempDir()
			lines(t, filepath.Join(dir, "mid.txt"), 200)
			srv := fakemodel.Start(t,
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("read", `{"path":"mid.txt"}`)}, InputTokens: 12000},
				fakemodel.Say("Summary: mid.txt holds 200 numbered lines."),
				fakemodel.Say("200 lines."))
			srv.SetWindow(1_000_000) // the server would allow far more
			cat, err := facts.New(map[string]facts.Override{model: {ContextWindow: 20000}})
			if err != nil {
				t.Fatal(err)
			}
			c := open(t, dir, srv, conductor.Options{Model: model, Catalog: cat})
			res, err := c.Run(context.Background(), "how long is mid.txt?")
			if err != nil || res.IsError || res.Text != "200 lines." {
				t.Fatalf("%+v %v; refusals %q", res, err, srv.Refusals())
			}
			if reqs := srv.Requests(); len(reqs) != 3 || !isSummary(reqs[1]) {
				t.Errorf("%d requests; the second is a summary request: %v", len(reqs), len(reqs) > 1 && isSummary(reqs[1]))
			}
		})
	}
}

// An answer is asked no longer than the model can give: a model whose
// output limit (the catalog's, here the user's correction) is under the
// default gets requests within it.
func TestMaxTokensWithinTheModelsOutputLimit(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Say("ok"))
	cat, err := facts.New(map[string]facts.Override{"anthropic/claude-sonnet-4-5": {MaxOutput: 4096}})
	if err != nil {
		t.Fatal(err)
	}
	c := open(t, dir, srv, conductor.Options{Catalog: cat})
	if res, err := c.Run(context.Background(), "hi"); err != nil || res.IsError {
		t.Fatal(res, err)
	}
	var body struct {
		MaxTokens int64 `json:"max_tokens"`
	}
	json.Unmarshal(srv.Requests()[0].Body, &body)
	if body.MaxTokens != 4096 {
		t.Errorf("max_tokens %d, want the model's 4096", body.MaxTokens)
	}
}
