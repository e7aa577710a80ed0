package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/indusagi/induscode/cmd/internal/render"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/provider/connect"
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
		Open:          connect.Opener(connect.Config{}),
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
	out := render.New(stdout, stderr, p.format, p.verbose)
	co.OnEvent = out.Event
	c, err := conductor.Open(ctx, co)
	if err != nil {
		var oe *conductor.OptionError
		if errors.As(err, &oe) {
			return &usageError{err}
		}
		return bootError(err)
	}
	out.SetSession(c.SessionID())
	c.Begin()
	res, err := c.Run(ctx, prompt)
	cerr := c.Close() // session:end; every process the tools started is stopped
	if err != nil {
		return &failure{err}
	}
	out.Result(res)
	if werr := out.Flush(); werr != nil {
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
