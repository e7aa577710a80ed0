package bridge

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/tool"
)

// convertResult keeps a server's result as it is: text, image and resource
// blocks map to their tool.Block kinds and isError rides through. Audio
// becomes a resource block holding the bytes (tool.Block has no audio kind)
// and a resource link a JSON block with its fields. Structured content
// becomes a JSON block after the content blocks, so it keeps its structure
// (call --json shows it, and a server re-exposing the tool hands it on as
// structured content).
func convertResult(r *mcp.CallToolResult) tool.Result {
	out := tool.Result{IsError: r.IsError}
	for _, c := range r.Content {
		out.Blocks = append(out.Blocks, convertContent(c))
	}
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			out.Blocks = append(out.Blocks, tool.Block{Kind: tool.KindJSON, JSON: b})
		} else {
			out.Blocks = append(out.Blocks, tool.TextBlock("[structured content the bridge could not encode: "+err.Error()+"]"))
		}
	}
	return out
}

func convertContent(c mcp.Content) tool.Block {
	switch x := c.(type) {
	case *mcp.TextContent:
		return tool.TextBlock(x.Text)
	case *mcp.ImageContent:
		return tool.Block{Kind: tool.KindImage, Data: x.Data, MIME: x.MIMEType}
	case *mcp.AudioContent:
		return tool.Block{Kind: tool.KindResource, Data: x.Data, MIME: x.MIMEType}
	case *mcp.EmbeddedResource:
		if x.Resource == nil {
			return tool.TextBlock("")
		}
		b := tool.Block{Kind: tool.KindResource, URI: x.Resource.URI, MIME: x.Resource.MIMEType, Text: x.Resource.Text}
		if x.Resource.Blob != nil {
			b.Data = x.Resource.Blob
		}
		return b
	}
	// Resource links and any newer kinds: their own JSON, which names the
	// type and keeps every field.
	b, err := json.Marshal(c)
	if err != nil {
		return tool.TextBlock("[content the bridge could not encode: " + err.Error() + "]")
	}
	return tool.Block{Kind: tool.KindJSON, JSON: b}
}
