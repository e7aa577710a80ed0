package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/internal/searchindex"
	"github.com/indusagi/induscode/session"
	"github.com/indusagi/induscode/tools/lsp"
)

// Exit codes of indusr.
const (
	ExitOK        = 0 // success
	ExitToolError = 1 // a tool reported an error (or a batch had one)
	ExitUsage     = 2 // bad flags, arguments or input
)

// usageError marks an error as the user's to fix: exit code 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return &usageError{fmt.Errorf(format, args...)} }

// errToolFailed carries exit code 1 without a message: the tool's own
// output already said what went wrong.
var errToolFailed = errors.New("tool reported an error")

// Main runs indusr with args (without the program name) and returns its
// exit code; -p execs indusr-agent (see [Program]). Interrupts (Ctrl-C,
// SIGTERM, SIGHUP) cancel the running call; the command then closes its
// deck, which stops every process the call started, before Main returns.
// A second interrupt ends the process at once.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return MainWith(Program{}, args, stdin, stdout, stderr)
}

// MainWith is [Main] for a program that adds to the command line: the
// agent's program runs -p itself.
func MainWith(prog Program, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// SIGHUP too: the processes a deck starts have process groups of their
	// own, so when the terminal goes away nobody else would stop them.
	// A second one ends the process at once (see notifyContext).
	ctx, stop := notifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// A reader that goes away (indusr call … | head) must not kill indusr
	// with SIGPIPE before the deck is closed: what the session started
	// would be orphaned. Asking for SIGPIPE (rather than ignoring it,
	// which children would inherit) turns a write to a closed pipe into
	// an EPIPE error; the command then ends the usual way, closing the
	// deck and killing every process group it started.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	return run(ctx, prog, args, stdin, stdout, stderr)
}

func run(ctx context.Context, prog Program, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(prog, args, stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errToolFailed):
		return ExitToolError
	default:
		var ec *exitCode
		if errors.As(err, &ec) {
			return ec.code
		}
		fmt.Fprintln(stderr, "indusr:", err)
		var f *failure
		if errors.As(err, &f) {
			return ExitToolError
		}
		// Everything else is a usage error: ours, or cobra's own for an
		// unknown command or a wrong argument count.
		return ExitUsage
	}
}

// interrupted returns a failure when ctx has ended (Ctrl-C, SIGTERM):
// the command stops rather than report partial work as a success.
func interrupted(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return &failure{fmt.Errorf("interrupted (%v)", context.Cause(ctx))}
}

// failure marks an error that is not the user's fault (a provisioning or
// I/O failure): exit code 1.
type failure struct{ err error }

func (e *failure) Error() string { return e.err.Error() }
func (e *failure) Unwrap() error { return e.err }

// newRoot is the command line; all is every argument, which -p hands the
// agent's program unchanged.
func newRoot(prog Program, all []string, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	opts := defaultOptions()
	root := &cobra.Command{
		Use:           "indusr",
		Short:         "induscode: the tool layer of a coding agent",
		Long:          "indusr lists and calls induscode's tools: the built-in file, search, shell and checklist tools, app cards and the tools of grafted MCP servers.\n\n" + handlesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	bindFlags(root.PersistentFlags(), &opts)
	var popts PrintFlags
	bindPrintFlags(root.Flags(), &popts)
	var showVersion bool
	root.Flags().BoolVarP(&showVersion, "version", "v", false, "print the version as X.Y.Z (indusr) and exit (indusr version says more)")
	root.Args = cobra.ArbitraryArgs // -p's prompt; anything else is a mistyped command
	root.SuggestionsMinimumDistance = suggestDistance
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if showVersion {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), shortVersion())
			return err
		}
		// The Agent SDK runs its executable without -p: stream-json input
		// is an agent run too.
		if !popts.Print && popts.SDK.InputFormat != "stream-json" {
			if len(args) > 0 {
				hint := ""
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					hint = "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
				}
				return usagef("unknown command %q for \"indusr\" (to give the agent a prompt: indusr -p %q)%s", args[0], strings.Join(args, " "), hint)
			}
			if interactive(cmd.InOrStdin(), cmd.OutOrStdout()) {
				return runInteractive(cmd, prog, &opts, &popts, all)
			}
			return cmd.Help()
		}
		return runAgent(cmd, prog, &opts, &popts, args, all)
	}
	// The environment that wires the app cards and the web policy is read
	// once, before any command, so a bad value is a usage error up front.
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		h, err := parseHandles(os.Getenv)
		opts.handles = h
		return err
	}
	root.AddCommand(
		newToolsCmd(&opts),
		newCallCmd(&opts),
		newRewindCmd(&opts),
		newVersionCmd(),
		newMCPCmd(&opts),
		newServeCmd(&opts),
		newAddonsCmd(&opts),
		newHooksCmd(&opts),
		newLSPCmd(&opts),
		newSandboxCmd(&opts),
		newTranscriptsCmd(&opts),
		newIndexCmd(&opts),
		newSkillsCmd(&opts),
		newCrewCmd(prog, &opts, all),
		newModelsCmd(prog, &opts, all),
	)
	guardParents(root)
	return root
}

// boot opens the session the global flags describe (see package
// session): the profile's tools, the --tools allow-list, the grafted MCP
// servers, a named session's saved state. Problems with MCP servers are
// reported on stderr and never stop the session. The caller must Close the
// session: that stops whatever its tools started, MCP servers included,
// and saves a named session.
func boot(ctx context.Context, opts *options, stderr io.Writer) (*session.Session, error) {
	s, err := session.Open(ctx, sessionOptions(opts, stderr))
	if err != nil {
		return nil, bootError(err)
	}
	return s, nil
}

// sessionOptions turns the global flags into session options; warnings go
// to stderr as "indusr: ...".
func sessionOptions(opts *options, stderr io.Writer) session.Options {
	return session.Options{
		Dir:      opts.Dir,
		Profile:  opts.Profile,
		Tools:    opts.Tools,
		NoTools:  opts.NoTools,
		NoMCP:    opts.NoMCP,
		MCP:      opts.MCP,
		Name:     opts.Session,
		NoAddons: opts.NoAddons,
		// CI and other unattended runs can trust the checkout's own MCP
		// config for one run.
		TrustProjectMCP: os.Getenv("INDUSR_TRUST_PROJECT_MCP") == "1",
		// Command hooks: Claude Code's are off unless asked
		// for; CI can trust the checkout's hooks for one run.
		ClaudeHooks:    opts.ClaudeHooks || os.Getenv("INDUSR_CLAUDE_HOOKS") == "1",
		TrustHooks:     os.Getenv("INDUSR_TRUST_HOOKS") == "1",
		Sandbox:        cmp.Or(opts.Sandbox, os.Getenv("INDUSR_SANDBOX")),
		SandboxNetwork: opts.SandboxNetwork || os.Getenv("INDUSR_SANDBOX_NETWORK") == "1",
		Warn:           func(msg string) { fmt.Fprintln(stderr, "indusr:", msg) },
		ClientName:     "indusr",
		ClientVersion:  versionString(),
		Framework:      framework(opts, stderr),
	}
}

// framework is the deck framework of the flags: the environment's handles,
// unless --no-index grep's index, and unless --no-lsp the language servers
// of the settings.
func framework(opts *options, stderr io.Writer) deck.Framework {
	f := opts.handles.framework(opts.Dir)
	if !indexDisabled(opts) {
		f.SearchIndex = searchindex.Open(workspaceDir(opts.Dir))
	}
	if opts.NoLSP || os.Getenv("INDUSR_NO_LSP") == "1" {
		return f
	}
	cfg, err := lsp.LoadConfig(workspaceDir(opts.Dir))
	if err != nil {
		fmt.Fprintln(stderr, "indusr:", err, "(using the default language servers)")
	}
	f.LanguageServers = &cfg
	return f
}

// workspaceDir is the -C directory, or the current one.
func workspaceDir(dir string) string {
	if dir != "" {
		return dir
	}
	wd, _ := os.Getwd()
	return wd
}

// bootError classes a session error: options to fix are usage errors
// (exit 2), the rest failures (exit 1).
func bootError(err error) error {
	var unknown *session.UnknownToolError
	if errors.As(err, &unknown) {
		return &usageError{err}
	}
	var oe *session.OptionError
	if errors.As(err, &oe) {
		switch oe.Option {
		case "dir":
			return usagef("--cwd %s", oe.Msg)
		case "name":
			return usagef("--session: %s", oe.Msg)
		case "sandbox":
			return usagef("--sandbox: %s", oe.Msg)
		}
		return &usageError{err}
	}
	return &failure{err}
}

// workDir is the session's working directory, absolute: --cwd or the
// current directory.
func workDir(opts *options) (string, error) {
	dir, err := session.WorkDir(opts.Dir)
	if err != nil {
		return "", bootError(err)
	}
	return dir, nil
}
