package conductor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/connect"
	"github.com/indusagi/induscode/transcript"
)

// TestMain serves as the sandbox's helper, and checks that no test leaves a goroutine behind, once the idle
// connections of the SDKs' HTTP client are closed.
func TestMain(m *testing.M) {
	jail.Main() // the sandbox's helper, for the hooks a test runs
	// Transcripts are signed with a key in the config folder: the tests'
	// own, never the user's.
	xdg, err := os.MkdirTemp("", "conductor-xdg-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", xdg)
	code := m.Run()
	os.RemoveAll(xdg)
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	if code == 0 {
		// The Gemini SDK's auth module starts opencensus's stats worker
		// in an init function: the program's, not a test's, goroutine.
		if err := goleak.Find(goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// eventLog is an addon that records every event it sees, by wire name.
type eventLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *eventLog) addon() *addons.Addon {
	return &addons.Addon{ID: "event-log", Register: func(api addons.API) error {
		for _, e := range addons.Events() {
			api.On(e, addons.Observer(func(context.Context, addons.Payload) {
				l.mu.Lock()
				l.seen = append(l.seen, e.String())
				l.mu.Unlock()
			}))
		}
		return nil
	}}
}

func (l *eventLog) names() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

func env(srv *fakemodel.Server) func(string) string {
	m := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL, "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL + "/v1", "OLLAMA_BASE_URL": srv.URL + "/v1",
		"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": srv.URL}
	return func(k string) string { return m[k] }
}

func modelOf(api string) string {
	switch api {
	case "openai":
		return "openai/gpt-5"
	case "openai-chat":
		return "openai-chat/gpt-5"
	case "gemini":
		return "gemini/gemini-2.5-flash"
	}
	return "anthropic/claude-sonnet-4-5"
}

func open(t *testing.T, dir string, srv *fakemodel.Server, o conductor.Options, extra ...*addons.Addon) *conductor.Conductor {
	t.Helper()
	o.Session.Dir, o.Session.NoMCP, o.Session.NoAddons = dir, true, true
	o.Session.Addons = extra
	o.Open = connect.Opener(connect.Config{Getenv: env(srv), MaxRetries: -1})
	if o.Model == "" {
		o.Model = modelOf("anthropic")
	}
	c, err := conductor.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A multi-turn edit task (read, edit, bash, answer) against both APIs,
// compacting once on the way: every addon event fires, in order, and the
// file is changed.
func TestEditTaskFiresEveryEvent(t *testing.T) {
	for _, api := range []string{"anthropic", "openai", "openai-chat", "gemini"} {
		t.Run(api, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello world\n"), 0o644)
			srv := fakemodel.Start(t,
				fakemodel.Call("read", `{"path":"greet.txt"}`),
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("edit", `{"path":"greet.txt","old_string":"world","new_string":"there"}`)}, InputTokens: 9000},
				fakemodel.Say("Summary: greet.txt was read and edited; run the check next."),
				fakemodel.Call("bash", `{"command":"cat greet.txt"}`),
				fakemodel.Say("Changed world to there."))
			log := &eventLog{}
			c := open(t, dir, srv, conductor.Options{Model: modelOf(api), Mode: conductor.BypassPermissions, ContextWindow: 10000}, log.addon())
			res, err := c.Run(context.Background(), "change world to there in greet.txt")
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || res.Text != "Changed world to there." || res.Turns != 4 {
				t.Fatalf("result %+v", res)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "greet.txt")); string(b) != "hello there\n" {
				t.Errorf("greet.txt is %q", b)
			}
			reqs := srv.Requests()
			if len(reqs) != 5 {
				t.Fatalf("%d requests", len(reqs))
			}
			if !strings.Contains(string(reqs[4].Body), "hello there") {
				t.Errorf("the bash output did not reach the model: %s", reqs[4].Body)
			}
			if !strings.Contains(string(reqs[3].Body), "Summary: greet.txt was read") || strings.Contains(string(reqs[3].Body), "hello world") {
				t.Errorf("the turn after compaction did not continue from the summary: %s", reqs[3].Body)
			}
			c.Close()
			seen := log.names()
			for _, e := range addons.Events() {
				if e == addons.SubagentStart || e == addons.SubagentStop {
					continue // no subagent here; see TestTaskRunsProfileInProcess
				}
				if !slices.Contains(seen, e.String()) {
					t.Errorf("event %s never fired; saw %v", e, seen)
				}
			}
			order := []string{"session:start", "input:submit", "turn:start", "context:build", "chat:params", "chat:message", "tool:before", "tool:after", "turn:end", "compact:before", "compact:build", "shell:env", "session:end"}
			at := 0
			for _, s := range seen {
				if at < len(order) && s == order[at] {
					at++
				}
			}
			if at != len(order) {
				t.Errorf("events out of order: want the subsequence %v in %v", order, seen)
			}
			_, lines, err := transcript.Open(dir, c.SessionID())
			if err != nil {
				t.Fatal(err)
			}
			msgs := transcript.Messages(lines)
			if len(msgs) != 4 || msgs[len(msgs)-1].Text() != "Changed world to there." {
				t.Errorf("the transcript resumes as %d messages: %+v", len(msgs), msgs)
			}
		})
	}
}

func gate(event addons.Event, reason string) *addons.Addon {
	return &addons.Addon{ID: "gatekeeper", Register: func(api addons.API) error {
		api.On(event, addons.Gater(func(context.Context, addons.Payload) addons.Decision {
			return addons.Decision{Stop: true, Reason: reason}
		}))
		return nil
	}}
}

func TestInputSubmitGateRefusesThePrompt(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Say("never"))
	c := open(t, t.TempDir(), srv, conductor.Options{}, gate(addons.InputSubmit, "no prompts on Fridays"))
	res, err := c.Run(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != conductor.Refused || !res.IsError || !strings.Contains(res.Text, "no prompts on Fridays") || len(srv.Requests()) != 0 {
		t.Fatalf("result %+v after %d requests", res, len(srv.Requests()))
	}
}

func TestChatParamsTransformChangesTheModel(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Say("ok"))
	swap := &addons.Addon{ID: "swap", Register: func(api addons.API) error {
		api.On(addons.ChatParams, addons.Transformer(func(_ context.Context, p addons.Payload) addons.Payload {
			var m map[string]any
			json.Unmarshal(p.(addons.ChatPayload).Params, &m)
			m["model"] = "anthropic/claude-haiku-4-5"
			b, _ := json.Marshal(m)
			return addons.ChatPayload{Params: b}
		}))
		return nil
	}}
	c := open(t, t.TempDir(), srv, conductor.Options{}, swap)
	if res, err := c.Run(context.Background(), "hi"); err != nil || res.IsError {
		t.Fatal(res, err)
	}
	if got := srv.Requests()[0].Model(); got != "claude-haiku-4-5" {
		t.Errorf("model sent %q", got)
	}
}

// A transform that returns only the option it changes keeps the others:
// the answer bound and the thinking budget still reach the model.
func TestChatParamsTransformOfOneOptionKeepsTheRest(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Say("ok"))
	swap := &addons.Addon{ID: "swap", Register: func(api addons.API) error {
		api.On(addons.ChatParams, addons.Transformer(func(context.Context, addons.Payload) addons.Payload {
			return addons.ChatPayload{Params: json.RawMessage(`{"model":"anthropic/claude-haiku-4-5"}`)}
		}))
		return nil
	}}
	c := open(t, t.TempDir(), srv, conductor.Options{MaxTokens: 5000, Thinking: "low"}, swap)
	if res, err := c.Run(context.Background(), "hi"); err != nil || res.IsError {
		t.Fatal(res, err)
	}
	var sent struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Thinking  struct {
			Budget int `json:"budget_tokens"`
		} `json:"thinking"`
	}
	json.Unmarshal(srv.Requests()[0].Body, &sent)
	if sent.Model != "claude-haiku-4-5" || sent.MaxTokens != 5000 || sent.Thinking.Budget != 1024 {
		t.Errorf("sent %+v, want haiku with max_tokens 5000 and a thinking budget of 1024", sent)
	}
}

func TestPlanModeRefusesAWrite(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Call("write", `{"path":"x.txt","content":"x"}`), fakemodel.Say("I will plan instead."))
	c := open(t, dir, srv, conductor.Options{Mode: conductor.Plan})
	res, err := c.Run(context.Background(), "write x.txt")
	if err != nil || res.IsError {
		t.Fatal(res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
		t.Error("plan mode let write run")
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "Plan mode") {
		t.Errorf("the refusal did not say why: %s", body)
	}
}

func TestDefaultModeRefusesBashUnlessAllowed(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("bash", `{"command":"touch a"}`, "bash", `{"command":"git diff; touch b"}`, "bash", `{"command":"touch c"}`),
		fakemodel.Say("done"))
	c := open(t, dir, srv, conductor.Options{Allowed: []string{"Bash(touch a)", "Bash(git diff:*)"}, Disallowed: []string{"Bash(touch c)"}})
	if res, err := c.Run(context.Background(), "go"); err != nil || res.IsError {
		t.Fatal(res, err)
	}
	for name, want := range map[string]bool{"a": true, "b": false, "c": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("file %s exists: %v, want %v", name, err == nil, want)
		}
	}
}

func TestMaxTurnsStopsTheRun(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Call("ls", `{}`), fakemodel.Call("ls", `{}`), fakemodel.Say("never"))
	c := open(t, t.TempDir(), srv, conductor.Options{MaxTurns: 2})
	res, err := c.Run(context.Background(), "loop")
	if err != nil {
		t.Fatal(err)
	}
	// The turn refused is counted, as Claude Code counts it.
	if res.Subtype != conductor.ErrorMaxTurns || !res.IsError || res.Turns != 3 || len(srv.Requests()) != 2 ||
		res.Text != "Reached maximum number of turns (2)" {
		t.Fatalf("result %+v, %d requests", res, len(srv.Requests()))
	}
}

func TestSendMessageJoinsTheNextCall(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Say("ok"))
	c := open(t, t.TempDir(), srv, conductor.Options{})
	c.SendMessage(context.Background(), "remember the milk")
	if _, err := c.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(srv.Requests()[0].Body), "remember the milk") {
		t.Errorf("sent message missing: %s", srv.Requests()[0].Body)
	}
}

func TestContinueResumesTheLatestConversation(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Say("first answer"), fakemodel.Say("second answer"))
	c := open(t, dir, srv, conductor.Options{})
	if _, err := c.Run(context.Background(), "first question"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c2 := open(t, dir, srv, conductor.Options{Continue: true})
	if c2.SessionID() != c.SessionID() {
		t.Errorf("continued %s, want %s", c2.SessionID(), c.SessionID())
	}
	if _, err := c2.Run(context.Background(), "second question"); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "first question") || !strings.Contains(body, "first answer") {
		t.Errorf("the conversation did not carry on: %s", body)
	}
}

func TestWorkspaceSettingsCannotLoosenTheMode(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	os.MkdirAll(filepath.Join(dir, ".indusvx"), 0o755)
	os.WriteFile(filepath.Join(dir, ".indusvx", "settings.json"), []byte(`{"permissionMode":"bypassPermissions"}`), 0o644)
	if _, err := conductor.LoadSettings(dir); err == nil || !strings.Contains(err.Error(), "may only choose default or plan") {
		t.Fatalf("a repository's settings chose bypassPermissions: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ".indusvx", "settings.json"), []byte(`{"model":"openai/gpt-5","maxTurns":7}`), 0o644)
	s, err := conductor.LoadSettings(dir)
	if err != nil || s.Model != "openai/gpt-5" || s.MaxTurns != 7 {
		t.Fatalf("%+v %v", s, err)
	}
}

// The user's settings correct models' facts per model id, the
// workspace's entry for a model replacing the user's; an entry that
// names no provider is an error saying how to name it.
func TestSettingsModels(t *testing.T) {
	dir := t.TempDir()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	os.MkdirAll(filepath.Join(cfg, "indusvx"), 0o755)
	os.WriteFile(filepath.Join(cfg, "indusvx", "settings.json"),
		[]byte(`{"models":{"ollama/qwen3":{"contextWindow":32768},"openai/gpt-5":{"price":{"input":1}}}}`), 0o644)
	os.MkdirAll(filepath.Join(dir, ".indusvx"), 0o755)
	os.WriteFile(filepath.Join(dir, ".indusvx", "settings.json"), []byte(`{"models":{"ollama/qwen3":{"contextWindow":65536}}}`), 0o644)
	s, err := conductor.LoadSettings(dir)
	if err != nil || s.Models["ollama/qwen3"].ContextWindow != 65536 || s.Models["openai/gpt-5"].Price == nil {
		t.Fatalf("%+v %v", s, err)
	}
	os.WriteFile(filepath.Join(dir, ".indusvx", "settings.json"), []byte(`{"models":{"qwen3":{"contextWindow":65536}}}`), 0o644)
	if _, err := conductor.LoadSettings(dir); err == nil || !strings.Contains(err.Error(), "settings.json") || !strings.Contains(err.Error(), "ollama/qwen3") {
		t.Fatalf("a bare model name in settings: %v", err)
	}
}

// Everything one prompt writes, over several turns, is one checkpoint
// node: a rewind of "last" undoes the prompt as a whole.
func TestOnePromptIsOneCheckpointNode(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("write", `{"path":"a.txt","content":"a"}`),
		fakemodel.Call("write", `{"path":"b.txt","content":"b"}`),
		fakemodel.Say("wrote both"))
	c := open(t, dir, srv, conductor.Options{Mode: conductor.AcceptEdits})
	res, err := c.Run(context.Background(), "write a and b")
	if err != nil || res.IsError {
		t.Fatal(res, err)
	}
	nodes, err := checkpoint.ForWorkspace(dir).Nodes()
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 || nodes[0].ID != res.Node || len(nodes[0].Files) != 2 {
		t.Fatalf("nodes %+v, want one node %s with both files", nodes, res.Node)
	}
}

// In the default mode a call that needs permission runs when a
// tool:before gate allows it outright (a PreToolUse hook's allow), and is
// refused, saying how to allow it, when the gates only let it pass.
func TestGateAllowGivesPermissionInDefaultMode(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("bash", `{"command":"touch allowed"}`, "bash", `{"command":"touch refused"}`),
		fakemodel.Say("done"))
	allow := &addons.Addon{ID: "allow-touch", Register: func(api addons.API) error {
		api.OnTool(addons.ToolBefore, "bash", addons.Gater(func(_ context.Context, p addons.Payload) addons.Decision {
			return addons.Decision{Allow: strings.Contains(string(p.(addons.ToolPayload).Args), "touch allowed")}
		}))
		return nil
	}}
	var results []provider.Block
	c := open(t, dir, srv, conductor.Options{OnEvent: func(e conductor.Event) {
		if tr, ok := e.(conductor.ToolResults); ok {
			results = append(results, tr.Message.Blocks...)
		}
	}}, allow)
	if res, err := c.Run(context.Background(), "touch both"); err != nil || res.IsError {
		t.Fatal(res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "allowed")); err != nil {
		t.Error("the call the gate allowed did not run")
	}
	if _, err := os.Stat(filepath.Join(dir, "refused")); err == nil {
		t.Error("the call no one allowed ran in the default mode")
	}
	if len(results) != 2 || results[1].Failure != toolrun.Refused || !strings.Contains(results[1].Text, "--allowed-tools") {
		t.Errorf("results %+v", results)
	}
}

// A message sent while the agent stops (a Stop hook's reason) keeps it
// going: the model answers it before the run ends.
func TestMessageAtStopKeepsTheAgentGoing(t *testing.T) {
	srv := fakemodel.Start(t, fakemodel.Say("first answer"), fakemodel.Say("tests ran too"))
	var h *addons.Handles
	var once sync.Once
	stopper := &addons.Addon{ID: "stopper", Register: func(api addons.API) error {
		h = api.Handles()
		api.On(addons.TurnEnd, addons.Observer(func(ctx context.Context, p addons.Payload) {
			if p.(addons.LifecyclePayload).Stopping {
				once.Do(func() { h.SendMessage(ctx, "run the tests first") })
			}
		}))
		return nil
	}}
	c := open(t, t.TempDir(), srv, conductor.Options{}, stopper)
	res, err := c.Run(context.Background(), "hi")
	if err != nil || res.IsError || res.Text != "tests ran too" || res.Turns != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "first answer") || !strings.Contains(body, "run the tests first") {
		t.Errorf("the second call lacks the answer and the message: %s", body)
	}
}

// A caller that can ask the user (a terminal UI) answers the calls that
// need permission: yes runs the call, no refuses it with the reason.
func TestAskLetsTheUserDecide(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t,
		fakemodel.Call("bash", `{"command":"touch yes"}`, "bash", `{"command":"touch no"}`),
		fakemodel.Say("done"))
	var asked []string
	c := open(t, dir, srv, conductor.Options{Ask: func(_ context.Context, q conductor.Question) conductor.Answer {
		var in struct{ Command string }
		json.Unmarshal(q.Input, &in)
		asked = append(asked, q.Tool+" "+in.Command)
		return conductor.Answer{Allow: in.Command == "touch yes", Reason: "not that one"}
	}})
	if res, err := c.Run(context.Background(), "touch both"); err != nil || res.IsError {
		t.Fatal(res, err)
	}
	if strings.Join(asked, ",") != "bash touch yes,bash touch no" {
		t.Errorf("asked %q", asked)
	}
	for name, want := range map[string]bool{"yes": true, "no": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("file %s exists: %v, want %v", name, err == nil, want)
		}
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "The user refused the call: not that one") {
		t.Errorf("the refusal did not reach the model: %s", body)
	}
}

// A gate that asks for confirmation (a PreToolUse hook's ask) puts even a
// read-only call to the user; without a user to ask, the call is refused.
func TestGateAskReachesTheUser(t *testing.T) {
	for _, tt := range []struct {
		name  string
		ask   bool // Options.Ask set, answering yes
		reads bool
	}{{"user says yes", true, true}, {"no one to ask", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("s3cr3t\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := fakemodel.Start(t, fakemodel.Call("read", `{"path":"secret.txt"}`), fakemodel.Say("done"))
			asker := &addons.Addon{ID: "asker", Register: func(api addons.API) error {
				api.OnTool(addons.ToolBefore, "read", addons.Gater(func(context.Context, addons.Payload) addons.Decision {
					return addons.Decision{Ask: true, Reason: "secret.txt holds keys"}
				}))
				return nil
			}}
			var asked []string
			opts := conductor.Options{}
			if tt.ask {
				opts.Ask = func(_ context.Context, q conductor.Question) conductor.Answer {
					asked = append(asked, q.Tool+": "+q.Why)
					return conductor.Answer{Allow: true}
				}
			}
			c := open(t, dir, srv, opts, asker)
			if res, err := c.Run(context.Background(), "read it"); err != nil || res.IsError {
				t.Fatal(res, err)
			}
			body := string(srv.Requests()[1].Body)
			if got := strings.Contains(body, "s3cr3t"); got != tt.reads {
				t.Errorf("the file reached the model: %v, want %v: %s", got, tt.reads, body)
			}
			if tt.ask && strings.Join(asked, ",") != "read: secret.txt holds keys" {
				t.Errorf("asked %q, want the read with the gate's reason", asked)
			}
			if !tt.ask && !strings.Contains(body, "cannot ask for") {
				t.Errorf("the refusal does not say no one could be asked: %s", body)
			}
		})
	}
}

// A child conversation has its own deck and conversation, shares the
// parent's model, and adds its changes to the checkpoint node of the
// parent's prompt when run under it.
func TestChildRunsItsOwnConversation(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t, fakemodel.Call("write", `{"path":"child.txt","content":"c"}`), fakemodel.Say("child done"))
	parent := open(t, dir, srv, conductor.Options{})
	child, err := parent.Child(context.Background(), conductor.Options{Mode: conductor.AcceptEdits, AppendSystem: "You are the reviewer."})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	if child.SessionID() != "" || child.Model() != parent.Model() {
		t.Errorf("child: transcript %q, model %s", child.SessionID(), child.Model())
	}
	node := checkpoint.NewNode()
	res, err := child.Run(checkpoint.WithNode(context.Background(), node), "write child.txt")
	if err != nil || res.IsError || res.Text != "child done" || res.Node != node {
		t.Fatalf("%+v %v", res, err)
	}
	if len(parent.Messages()) != 0 || len(child.Messages()) != 4 {
		t.Errorf("parent has %d messages, child %d", len(parent.Messages()), len(child.Messages()))
	}
	if !strings.Contains(string(srv.Requests()[0].Body), "You are the reviewer.") {
		t.Errorf("the child's briefing lacks its prompt")
	}
	nodes, err := checkpoint.ForWorkspace(dir).Nodes()
	if err != nil || len(nodes) != 1 || nodes[0].ID != node {
		t.Fatalf("nodes %+v %v", nodes, err)
	}
}
