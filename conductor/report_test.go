package conductor_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/provider"
)

// In default mode an edit nobody allowed is refused: the result lists
// it, so a script learns that nothing was changed; the run also says
// which model answered (as the server named it), how each message is
// known to the API, how long the API took and how the last answer
// stopped.
func TestResultReportsDenialsAndTheAnsweringModel(t *testing.T) {
	for _, model := range []string{"anthropic/claude-sonnet-4-5", "openai/gpt-5", "openai-chat/gpt-5", "ollama/qwen3:8b"} {
		t.Run(model, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
			edit := `{"path":"notes.txt","old_string":"hello","new_string":"goodbye"}`
			srv := fakemodel.Start(t,
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("read", `{"path":"notes.txt"}`)}, Model: "dated-model-2026"},
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("edit", edit)}, Model: "dated-model-2026"},
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("I could not edit it.")}, Model: "dated-model-2026"})
			var msgs []conductor.AssistantMessage
			var started []conductor.Started
			c := open(t, dir, srv, conductor.Options{Model: model, OnEvent: func(e conductor.Event) {
				switch e := e.(type) {
				case conductor.AssistantMessage:
					msgs = append(msgs, e)
				case conductor.Started:
					started = append(started, e)
				}
			}})
			c.Begin()
			// The run begins by naming what the session has: here no MCP
			// server or addon, and the one built-in subagent.
			if len(started) != 1 || len(started[0].Servers) != 0 || len(started[0].Addons) != 0 || !slices.Contains(started[0].Agents, conductor.GeneralPurpose) {
				t.Errorf("started %+v", started)
			}
			res, err := c.Run(context.Background(), "change hello to goodbye")
			if err != nil || res.IsError {
				t.Fatalf("%+v %v", res, err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "hello\n" {
				t.Fatalf("notes.txt = %q; the edit was to be refused", b)
			}
			if len(res.Denials) != 1 || res.Denials[0].Tool != "edit" || string(res.Denials[0].Input) != edit || res.Denials[0].ToolUseID == "" {
				t.Errorf("denials %+v, want the one edit", res.Denials)
			}
			if len(res.Models) != 1 || res.Models[0].Model != "dated-model-2026" || res.Models[0].Usage != res.Usage || res.Models[0].ContextWindow == 0 {
				t.Errorf("models %+v, want dated-model-2026 with the run's usage %+v", res.Models, res.Usage)
			}
			if res.Stop != provider.StopEndTurn || res.APIDuration <= 0 || res.APIDuration > res.Duration {
				t.Errorf("stop %q, API duration %v of %v", res.Stop, res.APIDuration, res.Duration)
			}
			if len(msgs) != 3 {
				t.Fatalf("%d assistant messages", len(msgs))
			}
			for _, m := range msgs {
				if m.Model != "dated-model-2026" || m.Requested != model || m.ID == "" {
					t.Errorf("assistant message: model %q, requested %q, id %q", m.Model, m.Requested, m.ID)
				}
			}
			if msgs[0].ID == msgs[1].ID {
				t.Errorf("two messages share the id %q", msgs[0].ID)
			}
		})
	}
}
