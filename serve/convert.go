package serve

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
)

// The MCP annotations of the catalog's tools that a tool spec does not
// carry. MCP's defaults are pessimistic (a tool is destructive and reaches
// the open world unless it says otherwise), so each catalog tool states
// both; read-only comes from the tool's own Spec.
var (
	// destructive tools may overwrite or delete what exists.
	destructive = map[string]bool{"write": true, "edit": true, "bash": true, "process": true, "bg-process": true}
	// openWorld tools reach beyond the workspace. A shell can reach
	// anything, so bash and process are left at MCP's default (open).
	openWorld = map[string]*bool{"webfetch": ptr(true), "websearch": ptr(true), "bash": nil, "process": nil, "bg-process": nil}
)

// mcpTool describes a deck tool to MCP clients. Tools that are not catalog
// rows (grafted MCP tools, addon tools) act beyond the deck: they are
// marked open-world and may be destructive (MCP's default).
func mcpTool(s tool.Spec) *mcp.Tool {
	ann := &mcp.ToolAnnotations{Title: s.Label, ReadOnlyHint: s.ReadOnly}
	if !deck.Has(s.Name) {
		ann.OpenWorldHint = ptr(true)
	} else {
		if !s.ReadOnly {
			ann.DestructiveHint = ptr(destructive[s.Name])
		}
		if ow, listed := openWorld[s.Name]; listed {
			ann.OpenWorldHint = ow
		} else {
			ann.OpenWorldHint = ptr(false)
		}
	}
	schema := s.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	t := &mcp.Tool{Name: s.Name, Title: s.Label, Description: s.Description, InputSchema: schema, Annotations: ann}
	if len(s.OutputSchema) > 0 {
		t.OutputSchema = s.OutputSchema
	}
	return t
}

func ptr[T any](v T) *T { return &v }

// mcpResult turns a deck result into an MCP tool result: text blocks stay
// text, images are image content, resources are embedded resources, and a
// JSON block is text (for clients that read only text). The last JSON
// object is also the structuredContent (a grafted tool's structured result
// arrives as its last block) when the tool declares an output schema
// (schema: MCP then requires it), or when the result holds nothing else:
// a client that reads structuredContent in place of the content, as
// Claude Code does, would otherwise miss the text (a process's output,
// an edit's summary).
func mcpResult(r tool.Result, schema bool) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, 0, len(r.Blocks))}
	var structured json.RawMessage
	onlyJSON := true
	for _, b := range r.Blocks {
		onlyJSON = onlyJSON && b.Kind == tool.KindJSON
		switch b.Kind {
		case tool.KindText:
			out.Content = append(out.Content, &mcp.TextContent{Text: b.Text})
		case tool.KindJSON:
			out.Content = append(out.Content, &mcp.TextContent{Text: string(b.JSON)})
			if isObject(b.JSON) {
				structured = b.JSON
			}
		case tool.KindImage:
			out.Content = append(out.Content, &mcp.ImageContent{Data: b.Data, MIMEType: b.MIME})
		case tool.KindResource:
			rc := &mcp.ResourceContents{URI: b.URI, MIMEType: b.MIME, Text: b.Text}
			if b.Data != nil {
				rc.Text, rc.Blob = "", b.Data
			}
			out.Content = append(out.Content, &mcp.EmbeddedResource{Resource: rc})
		default:
			out.Content = append(out.Content, &mcp.TextContent{Text: tool.Result{Blocks: []tool.Block{b}}.PlainText()})
		}
	}
	if structured != nil && (schema || onlyJSON) {
		out.StructuredContent = structured
	}
	return out
}

func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}
