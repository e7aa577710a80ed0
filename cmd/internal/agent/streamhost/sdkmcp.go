package streamhost

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/tool"
)

// serverManifest is what the TypeScript SDK learnt from one of the app's
// in-process MCP servers before starting indusr: its initialize answer
// and its tool list.
type serverManifest struct {
	InitializeResult json.RawMessage `json:"initializeResult"`
	ToolsListResult  *toolsList      `json:"toolsListResult"`
}

type toolsList struct {
	Tools []mcpTool `json:"tools"`
}

// mcpTool is a tool of an MCP tools/list answer.
type mcpTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations struct {
		Title        string `json:"title"`
		ReadOnlyHint bool   `json:"readOnlyHint"`
	} `json:"annotations"`
}

// graftAppServers grafts the tools of the app's in-process MCP servers
// (initialize's sdkMcpServers, or "sdk" entries of --mcp-config) as
// mcp__SERVER__TOOL: a call goes to the app as an mcp_message. The tool
// lists come from initialize's manifests; for a server without one
// indusr holds the MCP handshake itself over mcp_message.
func (h *host) graftAppServers(ctx context.Context, init *initRequest, o *conductor.Options) error {
	var names []string
	manifests := map[string]serverManifest{}
	if init != nil {
		names = append(names, init.SDKMcpServers...)
		manifests = init.SDKMcpServerManifests
	}
	for _, n := range sdkServersOf(h.cfg.MCPConfig) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, server := range names {
		m, ok := manifests[server]
		var tools []mcpTool
		if ok && m.ToolsListResult != nil {
			tools = m.ToolsListResult.Tools
		} else {
			var err error
			if tools, err = h.handshake(ctx, server); err != nil {
				h.warn("the app's MCP server %s: %v; its tools are not offered", server, err)
				continue
			}
		}
		for _, t := range tools {
			at, err := newAppTool(h, server, t)
			if err != nil {
				h.warn("the app's MCP server %s: tool %q: %v; it is not offered", server, t.Name, err)
				continue
			}
			o.Session.Extra = append(o.Session.Extra, at)
		}
		h.servers = append(h.servers, server)
	}
	return nil
}

// serverStatus lists the app's servers for mcp_status.
func (h *host) serverStatus() []map[string]any {
	out := []map[string]any{}
	for _, s := range h.servers {
		out = append(out, map[string]any{"name": s, "status": "connected", "source": "sdk"})
	}
	return out
}

// sdkServersOf returns the names of the "sdk" servers of --mcp-config
// values (JSON text, or a file holding it).
func sdkServersOf(configs []string) []string {
	var out []string
	for _, c := range configs {
		text := []byte(c)
		if !strings.HasPrefix(strings.TrimSpace(c), "{") {
			b, err := os.ReadFile(c)
			if err != nil {
				continue
			}
			text = b
		}
		var cfg struct {
			MCPServers map[string]struct {
				Type string `json:"type"`
			} `json:"mcpServers"`
		}
		if json.Unmarshal(text, &cfg) != nil {
			continue
		}
		for _, name := range sortedKeys(cfg.MCPServers) {
			if cfg.MCPServers[name].Type == "sdk" {
				out = append(out, name)
			}
		}
	}
	return out
}

// rpcSeq numbers indusr's JSON-RPC requests to the app's servers.
var rpcSeq atomic.Int64

// rpc sends one JSON-RPC request (or, with notify, a notification) to
// the app's server and returns its result.
func (h *host) rpc(ctx context.Context, server, method string, params any, notify bool) (json.RawMessage, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if !notify {
		msg["id"] = rpcSeq.Add(1)
	}
	resp, err := h.wire.request(ctx, map[string]any{"subtype": "mcp_message", "server_name": server, "message": msg})
	if err != nil || notify {
		return nil, err
	}
	var r struct {
		MCPResponse struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		} `json:"mcp_response"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return nil, fmt.Errorf("its answer to %s does not decode: %v", method, err)
	}
	if e := r.MCPResponse.Error; e != nil {
		return nil, fmt.Errorf("%s failed: %s (%d)", method, e.Message, e.Code)
	}
	return r.MCPResponse.Result, nil
}

// handshake opens a server the SDK sent no manifest for: initialize,
// notifications/initialized, tools/list.
func (h *host) handshake(ctx context.Context, server string) ([]mcpTool, error) {
	_, err := h.rpc(ctx, server, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "indusr", "version": "1"}}, false)
	if err != nil {
		return nil, err
	}
	if _, err := h.rpc(ctx, server, "notifications/initialized", map[string]any{}, true); err != nil {
		return nil, err
	}
	res, err := h.rpc(ctx, server, "tools/list", map[string]any{}, false)
	if err != nil {
		return nil, err
	}
	var l toolsList
	if err := json.Unmarshal(res, &l); err != nil {
		return nil, fmt.Errorf("its tools/list answer does not decode: %v", err)
	}
	return l.Tools, nil
}

// appTool is a tool of one of the app's in-process MCP servers.
type appTool struct {
	h      *host
	server string
	name   string // the server's name for it
	spec   tool.Spec
}

func newAppTool(h *host, server string, t mcpTool) (*appTool, error) {
	wire := "mcp__" + server + "__" + t.Name
	if err := tool.CheckName(wire); err != nil {
		return nil, err
	}
	schema, err := objectSchema(t.InputSchema)
	if err != nil {
		return nil, err
	}
	label := t.Title
	if label == "" {
		label = t.Annotations.Title
	}
	return &appTool{h: h, server: server, name: t.Name, spec: tool.Spec{Name: wire, Label: label,
		Description: t.Description, InputSchema: schema, ReadOnly: t.Annotations.ReadOnlyHint}}, nil
}

// objectSchema is an MCP input schema as a deck takes it: an object
// schema, without the draft-07 $schema the SDK's zod conversion names
// (the keywords it uses mean the same in draft 2020-12).
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return tool.EmptyObjectSchema(), nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("its input schema is not a JSON object: %v", err)
	}
	delete(m, "$schema")
	if t, ok := m["type"]; ok && t != "object" {
		return nil, fmt.Errorf("its input schema's type is %v; a tool takes an object", t)
	}
	m["type"] = "object"
	return json.Marshal(m)
}

func (t *appTool) Spec() tool.Spec { return tool.CloneSpec(t.spec) }

// Cancellable: the call returns when its context ends (the app is told
// with control_cancel_request).
func (t *appTool) Cancellable() bool { return true }

func (t *appTool) Run(ctx context.Context, input json.RawMessage, _ *tool.Env) tool.Result {
	res, err := t.h.rpc(ctx, t.server, "tools/call", map[string]any{"name": t.name, "arguments": input}, false)
	if err != nil {
		return tool.Errorf("the app's MCP server %s: %v", t.server, err)
	}
	var r struct {
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Data     string `json:"data"`
			MIMEType string `json:"mimeType"`
			Resource *struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"resource"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return tool.Errorf("the app's MCP server %s answered tools/call with a result that does not decode: %v", t.server, err)
	}
	out := tool.Result{IsError: r.IsError}
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			out.Blocks = append(out.Blocks, tool.TextBlock(c.Text))
		case "image":
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				return tool.Errorf("the app's MCP server %s sent an image that is not base64: %v", t.server, err)
			}
			out.Blocks = append(out.Blocks, tool.Block{Kind: tool.KindImage, Data: data, MIME: c.MIMEType})
		case "resource":
			if c.Resource != nil {
				out.Blocks = append(out.Blocks, tool.Block{Kind: tool.KindResource, URI: c.Resource.URI, Text: c.Resource.Text})
			}
		}
	}
	if len(out.Blocks) == 0 && len(r.StructuredContent) > 0 {
		out.Blocks = append(out.Blocks, tool.Block{Kind: tool.KindJSON, JSON: r.StructuredContent})
	}
	return out
}

var _ tool.Cancellable = (*appTool)(nil)
