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
	"time"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/checklist"
	"github.com/indusagi/induscode/workspace"
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
// exit code. Interrupts (Ctrl-C, SIGTERM, SIGHUP) cancel the running call; the
// command then closes its deck, which stops every process the call started,
// before Main returns.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// SIGHUP too: the processes a deck starts have process groups of their
	// own, so when the terminal goes away nobody else would stop them.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
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

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	opts := defaultOptions()
	root := &cobra.Command{
		Use:           "indusr",
		Short:         "induscode: the tool layer of a coding agent",
		Long:          "indusr lists and calls induscode's tools: the built-in file, search, shell and checklist tools, app cards and the tools of grafted MCP servers.",
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
		newRewindCmd(&opts),
		newVersionCmd(),
		newMCPCmd(&opts),
	)
	return root
}

// boot turns the global flags into a session deck: provision the profile,
// apply the --tools allow-list to the built-ins, then graft the tools of the
// MCP servers (--mcp paths, else those configured for the working
// directory). --no-tools yields an empty deck and mounts nothing. Problems
// with MCP servers are reported on stderr and never stop the session.
//
// The deck records every write and edit in the workspace's on-disk
// checkpoint store, so `indusr rewind` in a later process can undo them.
// The caller must Close the deck: that stops whatever its tools started,
// MCP servers included.
func boot(ctx context.Context, opts *options, stderr io.Writer) (*deck.Deck, error) {
	dir, err := workDir(opts)
	if err != nil {
		return nil, err
	}
	store := checkpoint.ForWorkspace(dir)
	housekeep(dir, store)
	dctx := deck.Context{Dir: dir, Framework: deck.Framework{Checkpoints: store}}
	var todos []checklist.Item
	if opts.Session != "" {
		if dctx.Framework.ReadState, todos, err = loadSession(dir, opts.Session); err != nil {
			return nil, err
		}
	}
	d, err := deck.Provision(opts.Profile, dctx)
	if err != nil {
		return nil, &failure{err}
	}
	if err := checklist.Of(d.Env()).Set(todos); err != nil {
		d.Close()
		return nil, &failure{fmt.Errorf("session %s: checklist: %w", opts.Session, err)}
	}
	if opts.NoTools {
		d.Retain(func(tool.Tool) bool { return false })
		return d, nil
	}
	if err := selectTools(d, opts.Tools, opts.Profile); err != nil {
		d.Close()
		return nil, err
	}
	if fleet := graftMCP(ctx, opts, dir, d, stderr); fleet != nil {
		d.Env().OnClose(fleet.Close)
	}
	return d, nil
}

// workDir is the session's working directory, absolute: --cwd or the
// current directory.
func workDir(opts *options) (string, error) {
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
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", &failure{fmt.Errorf("working directory: %w", err)}
	}
	return abs, nil
}

// housekeep is the work a session does when it starts, for what sessions
// killed before they could clean up left behind: temp files of writes
// interrupted mid-way, at the workspace root and in the checkpoint store;
// checkpoints past their age and size limits; processes of sessions that
// were killed (SIGKILL) before they could stop them.
// It never fails a session.
func housekeep(dir string, store *checkpoint.DiskStore) {
	atomicfile.Sweep(dir)
	store.Sweep()
	childproc.Reap(workspace.At(dir).Procs())
	_, _ = store.Prune(checkpoint.DefaultMaxAge, checkpoint.DefaultMaxBytes, time.Now())
}
