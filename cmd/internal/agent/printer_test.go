package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/provider"
)

// stream-json writes one object a line as things happen, each carrying
// the session; text writes only the answer, and an error to stderr.
func TestFormats(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	p := NewPrinter(&out, &errs, "stream-json", false)
	p.Event(conductor.Started{SessionID: "s1", Model: "m", Tools: []string{"read"}})
	p.Event(conductor.Notice{Text: "quiet in stream-json"})
	p.Result(&conductor.Result{Subtype: "success", Text: "done", Turns: 1})
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("stream-json wrote %d lines, want 2: %q", len(lines), out.String())
	}
	var first, last map[string]any
	if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &last) != nil {
		t.Fatalf("lines are not JSON: %q", lines)
	}
	if first["type"] != "system" || first["subtype"] != "init" || last["type"] != "result" || last["result"] != "done" || last["session_id"] != "s1" {
		t.Errorf("stream-json = %q", lines)
	}
	if errs.Len() != 0 {
		t.Errorf("stream-json printed a notice without verbose: %q", errs.String())
	}

	out.Reset()
	p = NewPrinter(&out, &errs, "text", false)
	p.Result(&conductor.Result{Text: "the answer\n\n"})
	p.Result(&conductor.Result{IsError: true, Text: "it broke"})
	_ = p.Flush()
	if out.String() != "the answer\n" || errs.String() != "indusr: it broke\n" {
		t.Errorf("text: stdout %q, stderr %q", out.String(), errs.String())
	}
}

// Reasoning that carries no text (OpenAI's encrypted reasoning item
// without a summary, kept to be sent back) is not shown as an empty
// thinking block; thinking with text is, with its signature.
func TestEmptyReasoningIsNotShown(t *testing.T) {
	t.Parallel()
	got := claudeBlocks([]provider.Block{
		{Kind: provider.ThinkingBlock, ID: "rs_1", Data: "gAAAA"},
		{Kind: provider.ThinkingBlock, Text: "plan", Signature: "sig"},
		{Kind: provider.TextBlock, Text: "done"},
	})
	b, _ := json.Marshal(got)
	if want := `[{"signature":"sig","thinking":"plan","type":"thinking"},{"text":"done","type":"text"}]`; string(b) != want {
		t.Errorf("blocks %s, want %s", b, want)
	}
}
