package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/provider"
)

// ExitInterrupted is the exit code of a -p run ended by Ctrl-C (128 +
// SIGINT, as shells report it).
const ExitInterrupted = 130

// exitCode ends the command with a code and no further message.
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit %d", e.code) }

// printOpts are the flags of a -p run, in Claude Code's spelling.
type printOpts struct {
	print        bool
	format       string
	maxTurns     int
	model        string
	mode         string
	appendSystem string
	verbose      bool
	cont         bool
	resume       string
	allowed      []string
	disallowed   []string
	thinking     string
}

func bindPrintFlags(fs *pflag.FlagSet, p *printOpts) {
	fs.BoolVarP(&p.print, "print", "p", false, "run the agent on a prompt (the arguments, else standard input), print the answer and exit")
	fs.StringVar(&p.format, "output-format", "text", "with -p: text, json (one result object) or stream-json (one JSON message per line)")
	fs.IntVar(&p.maxTurns, "max-turns", 0, "with -p: stop after this many model calls (default: settings, else no limit)")
	fs.StringVar(&p.model, "model", "", "model as provider/model: anthropic/claude-sonnet-4-5, openai/gpt-5, ollama/qwen3:8b (default: settings, else $INDUSR_MODEL)")
	fs.StringVar(&p.mode, "permission-mode", "", "default, acceptEdits, plan or bypassPermissions (default: settings, else default)")
	fs.StringVar(&p.appendSystem, "append-system-prompt", "", "text added to the end of the system prompt")
	fs.BoolVar(&p.verbose, "verbose", false, "with -p text output: show each tool call and result on stderr")
	fs.BoolVarP(&p.cont, "continue", "c", false, "continue the latest conversation of this workspace")
	fs.StringVarP(&p.resume, "resume", "r", "", "continue the conversation with this id (see indusr transcripts)")
	fs.StringSliceVar(&p.allowed, "allowed-tools", nil, `calls that run without asking, in Claude Code's syntax: "Bash(git diff:*)", Edit, mcp__server__tool`)
	fs.StringSliceVar(&p.disallowed, "disallowed-tools", nil, "calls that never run, same syntax; a bare tool name also hides the tool")
	fs.StringVar(&p.thinking, "thinking", "", "thinking level: off, low, medium or high")
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		switch name { // Claude Code's camelCase spellings
		case "allowedTools":
			name = "allowed-tools"
		case "disallowedTools":
			name = "disallowed-tools"
		case "permissionMode":
			name = "permission-mode"
		}
		return pflag.NormalizedName(name)
	})
}

// defaultModel is the model when neither a flag, a setting nor
// INDUSR_MODEL names one.
const defaultModel = "anthropic/claude-sonnet-4-5"

// runPrint is `indusr -p`.
func runPrint(cmd *cobra.Command, opts *options, p *printOpts, args []string) error {
	ctx := cmd.Context()
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	switch p.format {
	case "text", "json", "stream-json":
	default:
		return usagef("--output-format %q: use text, json or stream-json", p.format)
	}
	prompt := strings.Join(args, " ")
	if strings.TrimSpace(prompt) == "" {
		b, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return &failure{fmt.Errorf("reading the prompt from standard input: %w", err)}
		}
		prompt = string(b)
	}
	if strings.TrimSpace(prompt) == "" {
		return usagef("-p needs a prompt: indusr -p \"what to do\", or the prompt on standard input")
	}
	dir, err := workDir(opts)
	if err != nil {
		return err
	}
	settings, err := conductor.LoadSettings(dir)
	if err != nil {
		return usagef("%v", err)
	}
	co := conductor.Options{
		Session:       sessionOptions(opts, stderr),
		Model:         firstOf(p.model, settings.Model, os.Getenv("INDUSR_MODEL"), defaultModel),
		Mode:          conductor.PermissionMode(firstOf(p.mode, string(settings.PermissionMode))),
		Allowed:       p.allowed,
		Disallowed:    p.disallowed,
		MaxTurns:      p.maxTurns,
		AppendSystem:  p.appendSystem,
		Thinking:      p.thinking,
		ContextWindow: settings.ContextWindow,
		Resume:        p.resume,
		Continue:      p.cont,
	}
	if co.MaxTurns == 0 {
		co.MaxTurns = settings.MaxTurns
	}
	out := &printer{w: bufio.NewWriter(stdout), stderr: stderr, format: p.format, verbose: p.verbose}
	co.OnEvent = out.event
	c, err := conductor.Open(ctx, co)
	if err != nil {
		var oe *conductor.OptionError
		if errors.As(err, &oe) {
			return &usageError{err}
		}
		return bootError(err)
	}
	out.session = c.SessionID()
	c.Begin()
	res, err := c.Run(ctx, prompt)
	cerr := c.Close() // session:end; every process the tools started is stopped
	if err != nil {
		return &failure{err}
	}
	out.result(res)
	if werr := out.w.Flush(); werr != nil {
		return &failure{werr}
	}
	if cerr != nil {
		fmt.Fprintln(stderr, "indusr:", cerr)
	}
	switch {
	case res.Subtype == conductor.Cancelled:
		return &exitCode{ExitInterrupted}
	case res.IsError:
		return &exitCode{ExitToolError}
	}
	return nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// printer shows a run in one of the output formats.
type printer struct {
	w       *bufio.Writer
	stderr  io.Writer
	format  string
	verbose bool
	session string
}

func (p *printer) line(v any) {
	b, _ := json.Marshal(v)
	p.w.Write(b)
	p.w.WriteByte('\n')
	p.w.Flush() // each message as it happens, for a reader following the stream
}

func (p *printer) event(e conductor.Event) {
	switch e := e.(type) {
	case conductor.Started:
		p.session = e.SessionID
		if p.format == "stream-json" {
			p.line(map[string]any{"type": "system", "subtype": "init", "session_id": e.SessionID, "cwd": e.Dir,
				"tools": e.Tools, "model": e.Model, "permissionMode": e.Mode, "mcp_servers": []any{}})
		}
	case conductor.AssistantMessage:
		if p.format == "stream-json" {
			p.line(map[string]any{"type": "assistant", "session_id": p.session, "message": map[string]any{
				"type": "message", "role": "assistant", "model": e.Model, "content": claudeBlocks(e.Message.Blocks),
				"stop_reason": e.Stop, "usage": e.Usage}})
		} else if p.verbose {
			for _, b := range e.Message.ToolUses() {
				fmt.Fprintf(p.stderr, "→ %s %s\n", b.Name, clip(string(b.Input), 200))
			}
		}
	case conductor.ToolResults:
		if p.format == "stream-json" {
			p.line(map[string]any{"type": "user", "session_id": p.session, "message": map[string]any{
				"role": "user", "content": claudeBlocks(e.Message.Blocks)}})
		} else if p.verbose {
			for _, b := range e.Message.Blocks {
				mark := "←"
				if b.IsError {
					mark = "← error:"
				}
				fmt.Fprintf(p.stderr, "%s %s\n", mark, clip(b.Text, 200))
			}
		}
	case conductor.Notice:
		if p.format != "stream-json" || p.verbose {
			fmt.Fprintln(p.stderr, "indusr:", e.Text)
		}
	case conductor.Compacted:
		if p.format == "stream-json" {
			p.line(map[string]any{"type": "system", "subtype": "compact_boundary", "session_id": p.session})
		}
	}
}

func (p *printer) result(r *conductor.Result) {
	if p.format == "text" {
		if r.IsError {
			fmt.Fprintln(p.stderr, "indusr:", r.Text)
			return
		}
		p.w.WriteString(strings.TrimRight(r.Text, "\n") + "\n")
		return
	}
	p.line(map[string]any{
		"type": "result", "subtype": r.Subtype, "is_error": r.IsError,
		"duration_ms": r.Duration.Milliseconds(), "num_turns": r.Turns,
		"result": r.Text, "session_id": p.session, "total_cost_usd": r.Cost, "usage": r.Usage,
	})
}

// claudeBlocks writes content blocks as Claude Code's messages carry them.
func claudeBlocks(bs []provider.Block) []map[string]any {
	out := make([]map[string]any, 0, len(bs))
	for _, b := range bs {
		switch b.Kind {
		case provider.TextBlock:
			out = append(out, map[string]any{"type": "text", "text": b.Text})
		case provider.ThinkingBlock:
			out = append(out, map[string]any{"type": "thinking", "thinking": b.Text, "signature": b.Signature})
		case provider.ToolUseBlock:
			out = append(out, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": b.Input})
		case provider.ToolResultBlock:
			out = append(out, map[string]any{"type": "tool_result", "tool_use_id": b.ToolUseID, "content": b.Text, "is_error": b.IsError})
		}
	}
	return out
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
