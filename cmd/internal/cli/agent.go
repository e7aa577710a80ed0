package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/indusagi/induscode/session"
)

// AgentName is the agent's program: indusr -p execs it, found beside
// indusr or on PATH. It is a program of its own so that the commands of
// indusr (serve, call, tools, ...) link no model SDK and start as fast as
// the deck alone allows.
const AgentName = "indusr-agent"

// TerminalName is the agent's program in the terminal: indusr and
// indusr-agent with no command in a terminal exec it, found as the agent
// is. The terminal UI's libraries are its own, so that -p starts without
// them.
const TerminalName = "indusr-tui"

// agentInstall is how to get the agent, for the error that says it is
// missing: the module is installed from a clone (see README.md).
const agentInstall = "go install ./cmd/... (in a clone of induscode)"

// Program is what a binary adds to the command line Main runs.
type Program struct {
	// Agent runs -p. Nil (indusr) means exec indusr-agent with the same
	// arguments, so the process keeps its pid, standard streams and exit
	// status, and a script sees no difference.
	Agent Agent
	// Interactive holds a conversation in the terminal: indusr with no
	// command and no -p, when standard input and output are a terminal.
	// Nil (indusr, indusr-agent) means exec indusr-tui, as indusr does
	// indusr-agent for -p. Its AgentRun has no Args.
	Interactive Agent
	// Crew runs `indusr crew run PLAN.toml` (its AgentRun's Args are the
	// plan file; Flags carry --model, --permission-mode and, as Format,
	// text or json). Nil (indusr) means exec indusr-agent, as for -p.
	Crew Agent
	// Models is `indusr models`. Nil (indusr) means exec indusr-agent,
	// which knows the models.
	Models Models
}

// Agent runs the agent on a prompt: the program indusr-agent supplies
// one. Its error may be made with [Usagef], [Failure] or [Exit] for
// exit codes 2, 1 or any; any other error exits 2 after its message.
type Agent func(ctx context.Context, r AgentRun) error

// AgentRun is what a -p run is given by the command line.
type AgentRun struct {
	// Args are the arguments after the flags: the prompt's words.
	Args  []string
	Flags PrintFlags
	// Stdin, Stdout and Stderr are the command's streams.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// WorkDir returns the session's directory, absolute (--cwd or the
	// current one); its error is ready to return.
	WorkDir func() (string, error)
	// Session returns the session options of the global flags.
	Session func() session.Options
}

// PrintFlags are the flags of a -p run, in Claude Code's spelling.
type PrintFlags struct {
	Print        bool
	Format       string
	MaxTurns     int
	Model        string
	Mode         string
	AppendSystem string
	Verbose      bool
	Continue     bool
	Resume       string
	Allowed      []string
	Disallowed   []string
	Thinking     string
	// SDK are the flags of the Claude Agent SDK's command line.
	SDK SDKFlags
	// Partial is --include-partial-messages: stream-json adds the
	// model's answer as it streams, in stream_event lines.
	Partial bool
}

func bindPrintFlags(fs *pflag.FlagSet, p *PrintFlags) {
	fs.BoolVarP(&p.Print, "print", "p", false, "run the agent on a prompt (the arguments, else standard input), print the answer and exit")
	fs.StringVar(&p.Format, "output-format", "text", "with -p: text, json (one result object) or stream-json (one JSON message per line)")
	fs.IntVar(&p.MaxTurns, "max-turns", 0, "with -p: stop after this many model calls (default: settings, else no limit)")
	fs.StringVar(&p.Model, "model", "", "model as provider/model: anthropic/claude-sonnet-4-5, openai/gpt-5, gemini/gemini-2.5-pro, ollama/qwen3:8b (default: settings, else $INDUSR_MODEL)")
	fs.StringVar(&p.Mode, "permission-mode", "", "default, acceptEdits, plan or bypassPermissions (default: settings, else default)")
	fs.StringVar(&p.AppendSystem, "append-system-prompt", "", "text added to the end of the system prompt")
	fs.BoolVar(&p.Verbose, "verbose", false, "with -p text output: show each tool call and result on stderr; stream-json requires it, as in Claude Code")
	fs.BoolVarP(&p.Continue, "continue", "c", false, "continue the latest conversation of this workspace")
	fs.StringVarP(&p.Resume, "resume", "r", "", "continue the conversation with this id (see indusr transcripts)")
	fs.StringSliceVar(&p.Allowed, "allowed-tools", nil, `calls that run without asking, in Claude Code's syntax: "Bash(git diff:*)", Edit, mcp__server__tool`)
	fs.StringSliceVar(&p.Disallowed, "disallowed-tools", nil, "calls that never run, same syntax; a bare tool name also hides the tool")
	fs.StringVar(&p.Thinking, "thinking", "", "thinking level: off, low, medium or high")
	bindSDKFlags(fs, &p.SDK)
	fs.BoolVar(&p.Partial, "include-partial-messages", false, "with stream-json: also print the answer as it streams (stream_event lines)")
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

// runAgent is -p: the program's agent, or an exec of indusr-agent with
// the whole command line (args, as Main was given them).
func runAgent(cmd *cobra.Command, prog Program, opts *options, p *PrintFlags, args, all []string) error {
	if prog.Agent == nil {
		return execAgent(all)
	}
	if p.SDK.InputFormat == "stream-json" && cmd.Flags().Changed("tools") && len(opts.Tools) == 0 {
		// The Agent SDK's tools: [] is no built-in tool; the app's own
		// tools stay.
		opts.NoTools = true
	}
	stderr := cmd.ErrOrStderr()
	return prog.Agent(cmd.Context(), AgentRun{
		Args: args, Flags: *p,
		Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr,
		WorkDir: func() (string, error) { return workDir(opts) },
		Session: func() session.Options { return sessionOptions(opts, stderr) },
	})
}

// runInteractive is indusr alone in a terminal: the program's
// conversation, or an exec of indusr-agent with the whole command line.
func runInteractive(cmd *cobra.Command, prog Program, opts *options, p *PrintFlags, all []string) error {
	if prog.Interactive == nil {
		return execProgram(TerminalName, all)
	}
	stderr := cmd.ErrOrStderr()
	return prog.Interactive(cmd.Context(), AgentRun{
		Flags: *p,
		Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr,
		WorkDir: func() (string, error) { return workDir(opts) },
		Session: func() session.Options { return sessionOptions(opts, stderr) },
	})
}

// interactive reports whether in and out are a terminal.
func interactive(in io.Reader, out io.Writer) bool {
	fi, ok := in.(*os.File)
	fo, ok2 := out.(*os.File)
	return ok && ok2 && term.IsTerminal(fi.Fd()) && term.IsTerminal(fo.Fd())
}

// execAgent runs indusr-agent with the same arguments in this process's
// place (see exec_unix.go, exec_other.go); it returns only when that
// cannot be done, or where a process cannot be replaced, with the agent's
// exit status.
func execAgent(args []string) error { return execProgram(AgentName, args) }

// execProgram runs the program name (indusr-agent, indusr-tui) with the
// same arguments in this process's place, as execAgent does.
func execProgram(name string, args []string) error {
	path, err := findProgram(name)
	if err != nil {
		return &failure{err}
	}
	return replaceWith(path, args)
}

// findProgram returns the program name beside this one, else on PATH.
func findProgram(name string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return filepath.Abs(p)
	}
	where := "on PATH"
	if exe, err := os.Executable(); err == nil {
		where = "beside " + exe + " or on PATH"
	}
	what := "indusr -p runs the agent"
	if name == TerminalName {
		what = "a conversation in the terminal runs"
	}
	return "", fmt.Errorf("%s, %s, which is not installed %s; install it with indusr: %s",
		what, name, where, agentInstall)
}

// Usagef is an error the user must fix: exit code 2 after the message.
func Usagef(format string, args ...any) error { return usagef(format, args...) }

// Failure is an error that is not the user's fault: exit code 1 after
// the message.
func Failure(err error) error { return &failure{err} }

// Exit ends the command with code and no further message.
func Exit(code int) error { return &exitCode{code} }

// BootError classes an error of opening a session: options to fix exit
// 2, the rest 1.
func BootError(err error) error { return bootError(err) }

// exitCode ends the command with a code and no further message.
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit %d", e.code) }
