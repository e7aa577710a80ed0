package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
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
// exit code. Interrupts (Ctrl-C, SIGTERM) cancel the running call.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stdin, stdout, stderr)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errToolFailed):
		return ExitToolError
	default:
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

// failure marks an error that is not the user's fault (a provisioning or
// I/O failure): exit code 1.
type failure struct{ err error }

func (e *failure) Error() string { return e.err.Error() }
func (e *failure) Unwrap() error { return e.err }

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	opts := defaultOptions()
	root := &cobra.Command{
		Use:           "indusr",
		Short:         "induscode: the tool layer of a coding agent",
		Long:          "indusr lists, calls and serves induscode's tools: the built-in file, search, shell and checklist tools, app cards and grafted MCP servers.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	bindFlags(root.PersistentFlags(), &opts)
	root.AddCommand(
		newToolsCmd(&opts),
		newCallCmd(&opts),
		newVersionCmd(),
		newMCPCmd(&opts),
	)
	return root
}

// session is what boot builds: the deck and the MCP fleet grafted onto it.
// Close it when the command is done: that stops the MCP servers.
type session struct {
	deck  *deck.Deck
	fleet *bridge.Fleet // nil when no MCP server is mounted
}

func (s *session) Close() {
	if s.fleet != nil {
		s.fleet.Close()
	}
}

// boot turns the global flags into a session: provision the profile, apply
// the --tools allow-list to the built-ins, then graft the tools of the MCP
// servers (--mcp paths, else those configured for the working directory).
// --no-tools yields an empty deck and mounts nothing. Problems with MCP
// servers are reported on stderr and never stop the session.
func boot(ctx context.Context, opts *options, stderr io.Writer) (*session, error) {
	dir, err := sessionDir(opts)
	if err != nil {
		return nil, err
	}
	d, err := deck.Provision(opts.Profile, deck.Context{Dir: dir})
	if err != nil {
		return nil, &failure{err}
	}
	if opts.NoTools {
		d.Retain(func(tool.Tool) bool { return false })
		return &session{deck: d}, nil
	}
	if err := selectTools(d, opts.Tools, opts.Profile); err != nil {
		return nil, err
	}
	return &session{deck: d, fleet: graftMCP(ctx, opts, dir, d, stderr)}, nil
}

// sessionDir is --cwd, or the working directory, checked to be a directory.
func sessionDir(opts *options) (string, error) {
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", &failure{fmt.Errorf("working directory: %w", err)}
		}
		dir = wd
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", usagef("--cwd %q is not a directory", dir)
	}
	return filepath.Abs(dir)
}
