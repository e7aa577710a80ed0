package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
)

// Actions of the symbols tool.
const (
	ActionDefinition       = "definition"
	ActionReferences       = "references"
	ActionDocumentSymbols  = "document_symbols"
	ActionWorkspaceSymbols = "workspace_symbols"
	ActionHover            = "hover"
)

// Actions returns the symbols tool's actions; each call returns a new slice.
func Actions() []string {
	return []string{ActionDefinition, ActionReferences, ActionDocumentSymbols, ActionWorkspaceSymbols, ActionHover}
}

// MaxResults bounds the locations one call lists: enough for the
// references of a widely used function, few enough to read.
const MaxResults = 200

// requestTimeout bounds one question to a server; a large workspace's
// first workspace-wide query includes loading it.
const requestTimeout = 30 * time.Second

// SymbolsInput is the symbols tool's input.
type SymbolsInput struct {
	Action string `json:"action" jsonschema:"definition, references, document_symbols, workspace_symbols or hover."`
	Path   string `json:"path,omitempty" jsonschema:"The file, relative to the workspace or absolute. Needed by document_symbols, hover, and definition or references by position."`
	Line   int    `json:"line,omitempty" jsonschema:"1-based line of the symbol, as editors show it."`
	Column int    `json:"column,omitempty" jsonschema:"1-based column (in characters) of the symbol, as editors show it."`
	Name   string `json:"name,omitempty" jsonschema:"A symbol name instead of a position, for definition and references (\"Open\", \"Server.Close\")."`
	Query  string `json:"query,omitempty" jsonschema:"What workspace_symbols searches for: a name or part of one."`
}

// SymbolsTool returns the read-only symbols tool: code navigation through
// the session's language servers.
func SymbolsTool() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "symbols",
		Label: "Code symbols",
		Description: "Navigate code through language servers (gopls, typescript-language-server, pyright): " +
			"definition and references of a symbol (by path, line and column, or by name), the symbols of a file " +
			"(document_symbols), symbols across the workspace matching a query (workspace_symbols), and hover " +
			"(type and documentation). Results are path:line:column with the line's text, sorted.",
		ReadOnly: true,
	}, runSymbols, tool.WithSchema(func(s *jsonschema.Schema) {
		tool.SetEnum(s, "action", Actions()...)
		tool.SetMinimum(s, "line", 1)
		tool.SetMinimum(s, "column", 1)
	})))
}

func runSymbols(ctx context.Context, in SymbolsInput, env *tool.Env) tool.Result {
	m := Of(env)
	if m == nil {
		return tool.Errorf("language servers are off in this session (started with --no-lsp, or a host without them)")
	}
	ctx, cancel := context.WithTimeout(ctx, max(requestTimeout, m.cfg.Timeout+coldStart))
	defer cancel()
	q := query{m: m, env: env}
	switch in.Action {
	case ActionWorkspaceSymbols:
		if in.Query == "" {
			return tool.Errorf("workspace_symbols needs a query: a symbol name or part of one")
		}
		return q.workspaceSymbols(ctx, in.Query, in.Path)
	case ActionDocumentSymbols:
		if in.Path == "" {
			return tool.Errorf("document_symbols needs a path")
		}
		return q.documentSymbols(ctx, in.Path)
	case ActionHover, ActionDefinition, ActionReferences:
		if in.Name != "" && in.Action != ActionHover {
			return q.byName(ctx, in.Action, in.Name, in.Path)
		}
		if in.Path == "" || in.Line < 1 || in.Column < 1 {
			return tool.Errorf("%s needs path, line and column (1-based)%s", in.Action, map[bool]string{true: ", or a name", false: ""}[in.Action != ActionHover])
		}
		return q.atPosition(ctx, in.Action, in.Path, in.Line, in.Column)
	}
	return tool.Errorf("unknown action %q; use one of %s", in.Action, strings.Join(Actions(), ", "))
}

// query is one call of the symbols tool.
type query struct {
	m   *Manager
	env *tool.Env
}

// open syncs path with its server and returns the server and the text.
func (q query) open(ctx context.Context, path string) (*client, string, string, error) {
	abs, err := q.env.Resolve(path)
	if err != nil {
		return nil, "", "", err
	}
	c, ok, err := q.m.clientFor(abs)
	if !ok {
		return nil, "", "", fmt.Errorf("no language server is configured for %s files (see `indusr lsp status`)", extOf(abs))
	}
	if err != nil {
		return nil, "", "", err
	}
	if err := c.await(ctx); err != nil {
		return nil, "", "", err
	}
	text, readable := readSmall(abs)
	if !readable {
		return nil, "", "", fmt.Errorf("%s cannot be read, or is over %d MiB", q.env.Rel(abs), maxSyncBytes>>20)
	}
	if _, _, err := c.sync(ctx, abs, text); err != nil {
		return nil, "", "", c.failure("did not take the document", err)
	}
	return c, abs, text, nil
}

// anyClient returns a running server for a workspace-wide question: the
// one of path's language when path is given, else the first configured
// language that has files open or can start.
func (q query) anyClient(ctx context.Context, path string) (*client, error) {
	if path != "" {
		c, _, _, err := q.open(ctx, path)
		return c, err
	}
	langs := make([]string, 0, len(q.m.cfg.Servers))
	for l := range q.m.cfg.Servers {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	q.m.mu.Lock()
	for _, l := range langs {
		if c := q.m.clients[l]; c != nil && c.alive() {
			q.m.mu.Unlock()
			return c, c.await(ctx)
		}
	}
	q.m.mu.Unlock()
	for _, l := range langs {
		if marker := projectMarker(q.m.root, l); marker != "" {
			c, _, err := q.m.clientFor(marker)
			if err != nil {
				return nil, err
			}
			return c, c.await(ctx)
		}
	}
	return nil, fmt.Errorf("no language server serves this workspace; name a file with path")
}

func (q query) workspaceSymbols(ctx context.Context, text, path string) tool.Result {
	c, err := q.anyClient(ctx, path)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	var syms []documentSymbol
	if err := c.call(ctx, "workspace/symbol", map[string]string{"query": text}, &syms); err != nil {
		return tool.Errorf("%v", err)
	}
	var hits []hit
	for _, s := range syms {
		if s.Location == nil {
			continue
		}
		h := q.hitAt(*s.Location, c.enc)
		h.note = kindName(s.Kind) + " " + qualified(s.ContainerName, s.Name)
		hits = append(hits, h)
	}
	return q.list(fmt.Sprintf("symbols matching %q", text), hits)
}

func (q query) documentSymbols(ctx context.Context, path string) tool.Result {
	c, abs, text, err := q.open(ctx, path)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	var raw []documentSymbol
	if err := c.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": textDocumentIdentifier{URI: fileURI(abs)}}, &raw); err != nil {
		return tool.Errorf("%v", err)
	}
	var b strings.Builder
	n := 0
	var walk func([]documentSymbol, int)
	walk = func(ss []documentSymbol, depth int) {
		for _, s := range ss {
			if n == MaxResults {
				return
			}
			n++
			r := s.SelectionRange
			if s.Location != nil {
				r = s.Location.Range
			}
			col := toRunes(lineOf(text, r.Start.Line), r.Start.Character, c.enc) + 1
			fmt.Fprintf(&b, "%s%s:%d:%d: %s %s\n", strings.Repeat("  ", depth), q.env.Rel(abs), r.Start.Line+1, col, kindName(s.Kind), s.Name)
			walk(s.Children, depth+1)
		}
	}
	walk(raw, 0)
	if n == 0 {
		return tool.Textf("%s has no symbols.", q.env.Rel(abs))
	}
	return tool.Text(strings.TrimSuffix(b.String(), "\n"))
}

func (q query) atPosition(ctx context.Context, action, path string, line, column int) tool.Result {
	c, abs, text, err := q.open(ctx, path)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	pos := position{Line: line - 1, Character: toUnits(lineOf(text, line-1), column-1, c.enc)}
	return q.ask(ctx, c, action, abs, pos, fmt.Sprintf("%s at %s:%d:%d", action, q.env.Rel(abs), line, column))
}

// byName finds a symbol's declaration with a workspace query, then asks
// about it there.
func (q query) byName(ctx context.Context, action, name, path string) tool.Result {
	c, err := q.anyClient(ctx, path)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	var syms []documentSymbol
	if err := c.call(ctx, "workspace/symbol", map[string]string{"query": name}, &syms); err != nil {
		return tool.Errorf("%v", err)
	}
	short := name[strings.LastIndex(name, ".")+1:]
	var decls []documentSymbol
	for _, s := range syms {
		if s.Location != nil && (s.Name == name || s.Name == short && (short == name || strings.HasSuffix(qualified(s.ContainerName, s.Name), name))) {
			decls = append(decls, s)
		}
	}
	if len(decls) == 0 {
		return tool.Errorf("no symbol named %q in the workspace; try workspace_symbols with a part of the name", name)
	}
	if action == ActionDefinition {
		hits := make([]hit, len(decls))
		for i, s := range decls {
			hits[i] = q.hitAt(*s.Location, c.enc)
			hits[i].note = kindName(s.Kind) + " " + qualified(s.ContainerName, s.Name)
		}
		return q.list("definitions of "+name, hits)
	}
	var all []hit
	for _, s := range decls {
		dc, abs, _, err := q.open(ctx, uriPath(s.Location.URI))
		if err != nil {
			return tool.Errorf("%v", err)
		}
		hits, err := q.locations(ctx, dc, action, abs, s.Location.Range.Start)
		if err != nil {
			return tool.Errorf("%v", err)
		}
		all = append(all, hits...)
	}
	return q.list("references of "+name, all)
}

// ask answers a question about one position.
func (q query) ask(ctx context.Context, c *client, action, abs string, pos position, title string) tool.Result {
	if action == ActionHover {
		var h struct {
			Contents json.RawMessage `json:"contents"`
		}
		params := map[string]any{"textDocument": textDocumentIdentifier{URI: fileURI(abs)}, "position": pos}
		if err := c.call(ctx, "textDocument/hover", params, &h); err != nil {
			return tool.Errorf("%v", err)
		}
		if s := hoverText(h.Contents); s != "" {
			return tool.Text(s)
		}
		return tool.Textf("Nothing to show for %s.", title)
	}
	hits, err := q.locations(ctx, c, action, abs, pos)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	return q.list(title, hits)
}

// locations asks for the definition or the references at pos.
func (q query) locations(ctx context.Context, c *client, action, abs string, pos position) ([]hit, error) {
	params := map[string]any{"textDocument": textDocumentIdentifier{URI: fileURI(abs)}, "position": pos}
	if action == ActionReferences {
		params["context"] = map[string]bool{"includeDeclaration": true}
		var locs []location
		if err := c.call(ctx, "textDocument/references", params, &locs); err != nil {
			return nil, err
		}
		return q.hitsOf(locs, c.enc), nil
	}
	var raw json.RawMessage
	if err := c.call(ctx, "textDocument/definition", params, &raw); err != nil {
		return nil, err
	}
	return q.hitsOf(definitionLocations(raw), c.enc), nil
}
