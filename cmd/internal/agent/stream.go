package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/cmd/internal/agent/streamhost"
	"github.com/indusagi/induscode/cmd/internal/cli"
	"github.com/indusagi/induscode/conductor"
)

// runStream is --input-format stream-json: the session of an app built
// on the Claude Agent SDK (see package streamhost).
func runStream(ctx context.Context, r cli.AgentRun) error {
	p := r.Flags
	if p.SDK.InputFormat != "stream-json" {
		return cli.Usagef("--input-format %q: use text or stream-json", p.SDK.InputFormat)
	}
	if p.Format != "stream-json" {
		return cli.Usagef("--input-format stream-json needs --output-format stream-json")
	}
	if len(r.Args) > 0 {
		return cli.Usagef("--input-format stream-json reads the prompts from standard input; the arguments %q are not one", strings.Join(r.Args, " "))
	}
	if pt := p.SDK.PermissionPromptTool; pt != "" && pt != "stdio" {
		return cli.Usagef("--permission-prompt-tool %q: indusr asks the app over stdio only (--permission-prompt-tool=stdio)", pt)
	}
	dir, err := r.WorkDir()
	if err != nil {
		return err
	}
	co, err := baseOptions(r, dir)
	if err != nil {
		return err
	}
	co.Session.Dir = dir
	files, cleanup, err := mcpConfigFiles(p.SDK.MCPConfig)
	if err != nil {
		return err
	}
	defer cleanup()
	co.Session.MCP = append(co.Session.MCP, files...)
	err = streamhost.Serve(ctx, streamhost.Config{
		Options: co,
		Stdin:   r.Stdin, Stdout: r.Stdout, Stderr: r.Stderr,
		NewPrinter: func(out io.Writer) streamhost.Printer {
			pr := NewPrinter(out, r.Stderr, "stream-json", p.Verbose)
			pr.Partial = p.Partial
			pr.Init.APIKeySource = keySource(co.Model)
			return streamPrinter{pr}
		},
		AskApp:     p.SDK.PermissionPromptTool == "stdio",
		JSONSchema: p.SDK.JSONSchema,
		Replay:     p.SDK.ReplayUserMessages,
		MCPConfig:  p.SDK.MCPConfig,
	})
	if err != nil {
		return openError(err)
	}
	return nil
}

// streamPrinter is the printer under the host, which tells it the app's
// servers for system/init (the app's agents come with the roster in the
// conductor's Started).
type streamPrinter struct{ *Printer }

func (p streamPrinter) Describe(d streamhost.Description) {
	for _, s := range d.Servers {
		p.Init.MCPServers = append(p.Init.MCPServers, MCPServer{Name: s, Status: "connected"})
	}
}

// sdkOptions applies the Agent SDK's flags that shape the conversation,
// in any input format.
func sdkOptions(f cli.SDKFlags, co *conductor.Options) error {
	switch co.Thinking {
	case "disabled":
		co.Thinking = "off"
	case "adaptive", "enabled":
		co.Thinking = "medium"
	}
	if f.MaxThinkingTokens >= 0 {
		co.Thinking = streamhost.ThinkingLevel(f.MaxThinkingTokens)
	}
	co.System = f.SystemPrompt
	if f.SystemPromptFile != "" {
		b, err := os.ReadFile(f.SystemPromptFile)
		if err != nil {
			return cli.Usagef("--system-prompt-file: %v", err)
		}
		co.System = string(b)
	}
	co.Session.Tools = toolNames(co.Session.Tools)
	co.Ephemeral = f.NoPersistence
	if f.ForkSession && co.Resume == "" && !co.Continue {
		return cli.Usagef("--fork-session goes with --resume or --continue")
	}
	co.Fork = f.ForkSession
	if f.FallbackModel != "" && f.FallbackModel == co.Model {
		return cli.Usagef("--fallback-model %s is the model itself; name another", f.FallbackModel)
	}
	co.Open = withFallback(co.Open, f.FallbackModel)
	return nil
}

// mcpConfigFiles turns --mcp-config values into files the session mounts:
// a path as it is, JSON text ({"mcpServers": {...}}) as a temporary file
// holding its servers but the "sdk" ones, which are the app's own (see
// package streamhost). cleanup removes the temporary files.
func mcpConfigFiles(values []string) (files []string, cleanup func(), err error) {
	var temps []string
	cleanup = func() {
		for _, f := range temps {
			os.Remove(f)
		}
	}
	for _, v := range values {
		if !strings.HasPrefix(strings.TrimSpace(v), "{") {
			files = append(files, v)
			continue
		}
		var cfg struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal([]byte(v), &cfg); err != nil {
			cleanup()
			return nil, func() {}, cli.Usagef("--mcp-config: not JSON of the form {\"mcpServers\": {...}}: %v", err)
		}
		for name, raw := range cfg.MCPServers {
			var kind struct{ Type string }
			if json.Unmarshal(raw, &kind) == nil && kind.Type == "sdk" {
				delete(cfg.MCPServers, name)
			}
		}
		if len(cfg.MCPServers) == 0 {
			continue
		}
		b, _ := json.Marshal(map[string]any{"mcpServers": cfg.MCPServers})
		f, err := os.CreateTemp("", "indusr-mcp-config-*.json")
		if err == nil {
			temps = append(temps, f.Name())
			_, err = f.Write(b)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			cleanup()
			return nil, func() {}, cli.Failure(fmt.Errorf("--mcp-config: writing its servers to a file: %w", err))
		}
		files = append(files, f.Name())
	}
	return files, cleanup, nil
}

// toolNames reads --tools as the Agent SDK writes it: Claude Code's tool
// names (Read, Glob, TodoWrite) become ours, and its preset "default" is
// every tool.
func toolNames(names []string) []string {
	var out []string
	for _, n := range names {
		if n == "default" {
			return nil
		}
		out = append(out, hooks.OurToolName(n))
	}
	return out
}
