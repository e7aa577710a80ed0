package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/tool"
)

// Every block kind becomes MCP content of a kind the MCP spec has; a JSON
// object also becomes structuredContent of a tool with an output schema;
// isError is kept.
func TestResultConversion(t *testing.T) {
	t.Parallel()
	res := mcpResult(tool.Result{IsError: true, Blocks: []tool.Block{
		tool.TextBlock("hello"),
		{Kind: tool.KindImage, Data: []byte{0x89, 'P', 'N', 'G'}, MIME: "image/png"},
		{Kind: tool.KindResource, URI: "file:///a.txt", MIME: "text/plain", Text: "contents"},
		{Kind: tool.KindResource, URI: "file:///b.bin", MIME: "application/octet-stream", Data: []byte{1, 2}},
		{Kind: tool.KindJSON, JSON: json.RawMessage(`{"todos":[1,2]}`)},
	}}, true)
	if !res.IsError {
		t.Error("isError lost")
	}
	if len(res.Content) != 5 {
		t.Fatalf("content %d blocks", len(res.Content))
	}
	if c, ok := res.Content[0].(*mcp.TextContent); !ok || c.Text != "hello" {
		t.Errorf("text: %#v", res.Content[0])
	}
	if c, ok := res.Content[1].(*mcp.ImageContent); !ok || c.MIMEType != "image/png" || len(c.Data) != 4 {
		t.Errorf("image: %#v", res.Content[1])
	}
	if c, ok := res.Content[2].(*mcp.EmbeddedResource); !ok || c.Resource.Text != "contents" || c.Resource.URI != "file:///a.txt" {
		t.Errorf("text resource: %#v", res.Content[2])
	}
	if c, ok := res.Content[3].(*mcp.EmbeddedResource); !ok || len(c.Resource.Blob) != 2 || c.Resource.Text != "" {
		t.Errorf("binary resource: %#v", res.Content[3])
	}
	if c, ok := res.Content[4].(*mcp.TextContent); !ok || c.Text != `{"todos":[1,2]}` {
		t.Errorf("JSON as text: %#v", res.Content[4])
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"todos":[1,2]}` {
		t.Errorf("structuredContent = %s", sc)
	}
	// Every content serialises with an MCP type.
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{`"type":"text"`, `"type":"image"`, `"type":"resource"`} {
		if !strings.Contains(string(b), typ) {
			t.Errorf("wire form lacks %s: %s", typ, b)
		}
	}
	if strings.Contains(string(b), `"type":"json"`) {
		t.Errorf("wire form has a block type MCP does not know: %s", b)
	}
}

// structuredContent must be an object: arrays and scalars stay text
// only; of two objects the last is the structured result (a grafted tool's
// structuredContent comes after its content blocks).
func TestStructuredContentIsTheLastObject(t *testing.T) {
	t.Parallel()
	for name, blocks := range map[string][]tool.Block{
		"array":  {{Kind: tool.KindJSON, JSON: json.RawMessage(`[1,2]`)}},
		"scalar": {{Kind: tool.KindJSON, JSON: json.RawMessage(`42`)}},
	} {
		if res := mcpResult(tool.Result{Blocks: blocks}, false); res.StructuredContent != nil {
			t.Errorf("%s: structuredContent %v", name, res.StructuredContent)
		}
	}
	res := mcpResult(tool.Result{Blocks: []tool.Block{{Kind: tool.KindJSON, JSON: json.RawMessage(`{"type":"resource_link"}`)}, {Kind: tool.KindJSON, JSON: json.RawMessage(`{"b":2}`)}}}, false)
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"b":2}` {
		t.Errorf("structuredContent = %s, want the last object", sc)
	}
}

// A result with text beside its JSON (a process's output, an edit's
// summary) has no structuredContent unless the tool declares an output
// schema: a client that reads structuredContent in place of the content
// (Claude Code) would not see the text.
func TestStructuredContentOnlyWhenItHidesNothing(t *testing.T) {
	t.Parallel()
	blocks := []tool.Block{tool.TextBlock("p1 exited\nlater-line"), {Kind: tool.KindJSON, JSON: json.RawMessage(`{"id":"p1"}`)}}
	if res := mcpResult(tool.Result{Blocks: blocks}, false); res.StructuredContent != nil || len(res.Content) != 2 {
		t.Errorf("text and JSON, no schema: structuredContent %v, %d blocks", res.StructuredContent, len(res.Content))
	}
	if res := mcpResult(tool.Result{Blocks: blocks}, true); res.StructuredContent == nil {
		t.Error("a tool with an output schema lost its structuredContent")
	}
}

// A grafted tool's output schema is served with it.
func TestOutputSchemaIsServed(t *testing.T) {
	t.Parallel()
	tl := mcpTool(tool.Spec{Name: "everything__get-structured-content", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object","properties":{"temperature":{"type":"number"}}}`)})
	if b, _ := json.Marshal(tl.OutputSchema); !strings.Contains(string(b), "temperature") {
		t.Errorf("outputSchema = %s", b)
	}
}

func TestAnnotations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec                             tool.Spec
		readOnly                         bool
		destructive, openWorld, explicit *bool
	}{
		{spec: tool.Spec{Name: "read", ReadOnly: true}, readOnly: true, openWorld: ptr(false)},
		{spec: tool.Spec{Name: "edit"}, destructive: ptr(true), openWorld: ptr(false)},
		{spec: tool.Spec{Name: "bash"}, destructive: ptr(true)},
		{spec: tool.Spec{Name: "todo_set"}, destructive: ptr(false), openWorld: ptr(false)},
		{spec: tool.Spec{Name: "everything__echo"}, openWorld: ptr(true)},
	} {
		a := mcpTool(tc.spec).Annotations
		if a.ReadOnlyHint != tc.readOnly || !same(a.DestructiveHint, tc.destructive) || !same(a.OpenWorldHint, tc.openWorld) {
			t.Errorf("%s: readOnly=%v destructive=%v openWorld=%v", tc.spec.Name, a.ReadOnlyHint, show(a.DestructiveHint), show(a.OpenWorldHint))
		}
	}
}

func same(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(b *bool) any {
	if b == nil {
		return "unset"
	}
	return *b
}
