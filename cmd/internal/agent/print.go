package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/indusagi/induscode/cmd/internal/cli"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/connect"
	"github.com/indusagi/induscode/provider/facts"
)

// ExitInterrupted is the exit code of a -p run ended by Ctrl-C (128 +
// SIGINT, as shells report it).
const ExitInterrupted = 130

// defaultModel is the model when neither a flag, a setting nor
// INDUSR_MODEL names one.
const defaultModel = "anthropic/claude-sonnet-4-5"

// Main runs indusr-agent with args (without the program name) and
// returns its exit code: the command line of indusr, with -p run here.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.MainWith(Program(), args, stdin, stdout, stderr)
}

// Program is what the agent adds to indusr's command line: -p, crew run
// and models run here. The terminal UI is not among them: it is
// indusr-tui's (package terminal), whose Markdown renderer alone costs
// every start some 20 ms of package initialisation, which -p and the SDK
// host, started by scripts and apps, must not pay.
func Program() cli.Program {
	return cli.Program{Agent: runPrint, Crew: runCrew, Models: runModels}
}

// ConductorOptions are the conductor's options for a run of r in the
// workspace dir: its flags, the settings, the models' facts and opener.
func ConductorOptions(r cli.AgentRun, dir string) (conductor.Options, error) {
	return baseOptions(r, dir)
}

// OpenError classes an error of conductor.Open: an option to fix is a
// usage error, the rest a failure to boot.
func OpenError(err error) error { return openError(err) }

// runPrint is `-p`: one prompt run to its answer, printed in the output
// format.
func runPrint(ctx context.Context, r cli.AgentRun) error {
	p := r.Flags
	switch p.Format {
	case "text", "json", "stream-json":
	default:
		return cli.Usagef("--output-format %q: use text, json or stream-json", p.Format)
	}
	if p.Format == "stream-json" && !p.Verbose {
		// Claude Code's rule, in its words: a script written for it
		// passes --verbose, and one that does not fails the same way.
		return cli.Failure(errors.New("When using --print, --output-format=stream-json requires --verbose"))
	}
	if p.Partial && p.Format != "stream-json" {
		return cli.Usagef("--include-partial-messages needs --output-format stream-json")
	}
	if p.SDK.InputFormat != "text" {
		return runStream(ctx, r)
	}
	prompt := strings.Join(r.Args, " ")
	if strings.TrimSpace(prompt) == "" {
		b, err := io.ReadAll(r.Stdin)
		if err != nil {
			return cli.Failure(fmt.Errorf("reading the prompt from standard input: %w", err))
		}
		prompt = string(b)
	}
	if strings.TrimSpace(prompt) == "" {
		return cli.Usagef("-p needs a prompt: indusr -p \"what to do\", or the prompt on standard input")
	}
	dir, err := r.WorkDir()
	if err != nil {
		return err
	}
	co, err := baseOptions(r, dir)
	if err != nil {
		return err
	}
	out := NewPrinter(r.Stdout, r.Stderr, p.Format, p.Verbose)
	out.Partial = p.Partial
	out.Init.APIKeySource = keySource(co.Model)
	co.OnEvent = out.Event
	c, err := conductor.Open(ctx, co)
	if err != nil {
		return openError(err)
	}
	out.SetSession(c.SessionID())
	c.Begin()
	res, err := c.Run(ctx, prompt)
	cerr := c.Close() // session:end; every process the tools started is stopped
	if err != nil {
		return cli.Failure(err)
	}
	out.Result(res)
	if werr := out.Flush(); werr != nil {
		return cli.Failure(werr)
	}
	if cerr != nil {
		fmt.Fprintln(r.Stderr, "indusr:", cerr)
	}
	switch {
	case res.Subtype == conductor.Cancelled:
		return cli.Exit(ExitInterrupted)
	case res.IsError:
		return cli.Exit(cli.ExitToolError)
	}
	return nil
}

// openError classes an error of opening the conversation: options to fix
// exit 2, the rest 1.
func openError(err error) error {
	var oe *conductor.OptionError
	if errors.As(err, &oe) {
		return cli.Usagef("%w", err)
	}
	return cli.BootError(err)
}

// baseOptions are the conversation's options from the flags and the
// workspace's settings.
func baseOptions(r cli.AgentRun, dir string) (conductor.Options, error) {
	p := r.Flags
	settings, err := conductor.LoadSettings(dir)
	if err != nil {
		return conductor.Options{}, cli.Usagef("%v", err)
	}
	catalog, err := facts.New(settings.Models)
	if err != nil {
		return conductor.Options{}, cli.Usagef("%v", err)
	}
	co := conductor.Options{
		Session:       r.Session(),
		Model:         firstOf(p.Model, settings.Model, os.Getenv("INDUSR_MODEL"), defaultModel),
		Open:          connect.Opener(connect.Config{Catalog: catalog, OpenAIAPI: settings.OpenAIAPI}),
		Catalog:       catalog,
		Mode:          conductor.PermissionMode(firstOf(p.Mode, string(settings.PermissionMode))),
		Allowed:       p.Allowed,
		Disallowed:    p.Disallowed,
		MaxTurns:      p.MaxTurns,
		AppendSystem:  p.AppendSystem,
		Thinking:      p.Thinking,
		ContextWindow: settings.ContextWindow,
		Resume:        p.Resume,
		Continue:      p.Continue,
	}
	if co.MaxTurns == 0 {
		co.MaxTurns = settings.MaxTurns
	}
	return co, sdkOptions(p.SDK, &co)
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// keySource is system/init's apiKeySource: the variable the model's key
// is read from, or "none" for a provider that needs no key.
func keySource(model string) string {
	m, err := provider.ParseModelID(model)
	if err != nil {
		return "none"
	}
	if info, ok := provider.Lookup(m.Provider); ok && info.KeyVar != "" {
		return info.KeyVar
	}
	return "none"
}
