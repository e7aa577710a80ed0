package tool_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

func TestResultJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := tool.Result{IsError: true, Blocks: []tool.Block{
		tool.TextBlock("hello"),
		tool.JSONBlock(map[string]int{"n": 1}),
		{Kind: tool.KindImage, Data: []byte{0x89, 'P', 'N', 'G'}, MIME: "image/png"},
		{Kind: tool.KindResource, URI: "file:///a.txt", MIME: "text/plain", Text: "body"},
	}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"type":"text","text":"hello"`, `"type":"json","json":{"n":1}`,
		`"type":"image","data":"iVBORw==","mimeType":"image/png"`, `"isError":true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var out tool.Result
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.PlainText() != in.PlainText() || out.IsError != in.IsError {
		t.Errorf("round trip changed the result:\n%q\n%q", out.PlainText(), in.PlainText())
	}
	if err := json.Unmarshal([]byte(`{"content":[{"type":"video"}]}`), &out); err == nil {
		t.Error("unknown block type accepted")
	}
}

func TestEmptyResultEncodesContentArray(t *testing.T) {
	t.Parallel()
	b, _ := json.Marshal(tool.Result{})
	if string(b) != `{"content":[]}` {
		t.Errorf("got %s", b)
	}
}

// TestKindsHandled fails when a Kind is added without a name and a plain
// rendering.
func TestKindsHandled(t *testing.T) {
	t.Parallel()
	for _, k := range tool.Kinds() {
		if strings.HasPrefix(k.String(), "Kind(") {
			t.Errorf("kind %d has no name", k)
		}
		if strings.HasPrefix(tool.Result{Blocks: []tool.Block{{Kind: k}}}.PlainText(), "[unknown") {
			t.Errorf("kind %s has no plain rendering", k)
		}
	}
}

func TestErrorfAndPlainText(t *testing.T) {
	t.Parallel()
	r := tool.Errorf("bad %s", "thing")
	if !r.IsError || r.PlainText() != "bad thing" {
		t.Errorf("Errorf = %+v", r)
	}
	two := tool.Result{Blocks: []tool.Block{tool.TextBlock("a"), tool.TextBlock("b")}}
	if two.PlainText() != "a\n\nb" {
		t.Errorf("PlainText = %q", two.PlainText())
	}
	if tool.JSON(make(chan int)).IsError != true {
		t.Error("unencodable JSON did not fail")
	}
}
