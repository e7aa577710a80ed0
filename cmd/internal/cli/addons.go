package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/addons/rpc"
	"github.com/indusagi/induscode/agents"
	"github.com/indusagi/induscode/session"
)

func newAddonsCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "addons",
		Short: "List, check and run the workspace's addons",
		Long: `Addons live in .indus/addons of the working directory, one folder each with a
manifest.toml that declares commands, gates and interceptors:

  id = "safety"
  [[command]]
  name = "deploy"
  summary = "run the deploy script"
  exec = "./scripts/deploy.sh"
  [[gate]]
  event = "tool:before"
  match-tool = "bash"
  reason = "no shell here"
  [[interceptor]]                       # fix arguments, redact results
  match-tool = "bash"
  set = { timeout = 60 }
  redact = ['AKIA[0-9A-Z]{16}']

Gates and interceptors act on every tool call of indusr call, batch and
serve. --no-addons loads none.

A manifest with a [process] table is an addon in any language: a program
that speaks JSON-RPC on stdin and stdout (docs/addon-protocol.md):

  [process]
  command = ["python3", "addon.py"]
  env = ["HOME"]
  timeout = "5s"`,
	}
	cmd.AddCommand(newAddonsListCmd(opts), newAddonsCheckCmd(opts), newAddonsRunCmd(opts))
	return cmd
}

// addonReport is what `indusr addons list --json` prints.
type addonReport struct {
	Addons   []addons.Loaded   `json:"addons"`
	Commands []addonCommandRow `json:"commands"`
	Gates    []addons.GateInfo `json:"gates"`
	// Interceptors are listed by addon and tool ("" for every tool).
	Interceptors []interceptorRow `json:"interceptors"`
	Tools        []string         `json:"tools"`
	Agents       []agents.Profile `json:"agents"`
	Faults       []addonFaultRow  `json:"faults"`
	// Processes are the Tier-1 addons: state, crashes, log.
	Processes []rpc.Status `json:"processes"`
	// Grants are what each manifest addon's hooks, process and commands
	// may reach under a sandbox mode (its [sandbox] table).
	Grants []grantRow `json:"grants"`
}

type grantRow struct {
	Addon addons.ID     `json:"addon"`
	File  string        `json:"file"`
	Grant session.Grant `json:"grant"`
	// Env are the variables its [process] may see (its env list).
	Env []string `json:"env,omitempty"`
}

// String is the grant with the process's variables, as a user reads it.
func (g grantRow) String() string {
	if len(g.Env) == 0 {
		return g.Grant.String()
	}
	return g.Grant.String() + "; env " + strings.Join(g.Env, ", ")
}

type addonCommandRow struct {
	Name    string    `json:"name"`
	Summary string    `json:"summary,omitempty"`
	Addon   addons.ID `json:"addon"`
}

type interceptorRow struct {
	Addon addons.ID `json:"addon"`
	Tool  string    `json:"matchTool,omitempty"`
}

type addonFaultRow struct {
	Kind    addons.FaultKind `json:"kind"`
	Addon   addons.ID        `json:"addon,omitempty"`
	File    string           `json:"file,omitempty"`
	Line    int              `json:"line,omitempty"`
	Message string           `json:"message"`
}

// loadAddons loads the workspace's addons without booting a session: no
// tools, no MCP servers, no command runs.
// The subagent profiles of .indus/agents are read too.
func loadAddons(ctx context.Context, opts *options) (addonReport, error) {
	dir, err := workDir(opts)
	if err != nil {
		return addonReport{}, err
	}
	a, err := session.ReadApprovals(sessionOptions(opts, io.Discard), session.AddonHooks)
	if err != nil && a == nil {
		return addonReport{}, bootError(err)
	}
	var h *addons.Host
	// A process started to declare itself runs within its approved grant,
	// as in a session.
	popts, done := a.ProcessOptions(rpc.Options{Workspace: dir, Report: func(f *addons.Fault) { h.Report(f) }})
	defer done()
	procs := rpc.NewLoader(popts)
	// Listing must not run a repository's code the user has not approved.
	h = addons.NewHost(addons.HostOptions{Loader: a.Loader(procs, manifest.Loader{})})
	r := reportOf(h.LoadAll(ctx, addons.Discovery{Workspace: dir}))
	procs.Close() // a process started to declare itself is not needed here
	r.Processes = append([]rpc.Status{}, procs.Statuses()...)
	r.Grants = []grantRow{}
	procDecls := manifest.Processes(addons.Discovery{Workspace: dir})
	for _, g := range manifest.Grants(addons.Discovery{Workspace: dir}) {
		row := grantRow{Addon: g.ID, File: relToWork(opts, g.File), Grant: session.GrantOf(g.Sandbox)}
		if p := procDecls[g.File]; p != nil {
			row.Env = p.Env
		}
		r.Grants = append(r.Grants, row)
	}
	profiles, faults := agents.Discover(dir)
	r.Agents = append(r.Agents, profiles...)
	for _, f := range faults {
		r.Faults = append(r.Faults, faultRow(f))
	}
	return r, nil
}

func faultRow(f *addons.Fault) addonFaultRow {
	msg := f.Msg
	if f.Err != nil {
		msg += ": " + f.Err.Error()
	}
	return addonFaultRow{Kind: f.Kind, Addon: f.Addon, File: f.File, Line: f.Line, Message: msg}
}

func reportOf(b *addons.Bundle) addonReport {
	r := addonReport{Addons: b.Loaded, Gates: b.Gates, Commands: []addonCommandRow{}, Tools: []string{}, Agents: []agents.Profile{}, Faults: []addonFaultRow{}}
	if r.Addons == nil {
		r.Addons = []addons.Loaded{}
	}
	if r.Gates == nil {
		r.Gates = []addons.GateInfo{}
	}
	for _, c := range b.Commands {
		r.Commands = append(r.Commands, addonCommandRow{Name: c.Name, Summary: c.Summary, Addon: c.Addon})
	}
	r.Interceptors = []interceptorRow{}
	for _, ic := range b.Chain.Interceptors() {
		r.Interceptors = append(r.Interceptors, interceptorRow{Addon: ic.Addon, Tool: ic.Match.Tool})
	}
	for _, t := range b.Tools {
		r.Tools = append(r.Tools, t.Spec().Name)
	}
	for _, f := range b.Faults() {
		r.Faults = append(r.Faults, faultRow(f))
	}
	return r
}

func newAddonsListCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the addons with their commands, gates, tools and faults, and the agent profiles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadAddons(cmd.Context(), opts)
			if err != nil {
				return err
			}
			if opts.JSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			return writeAddons(cmd.OutOrStdout(), r)
		},
	}
}

func writeAddons(w io.Writer, r addonReport) error {
	if len(r.Addons) == 0 && len(r.Faults) == 0 && len(r.Agents) == 0 {
		_, err := fmt.Fprintln(w, "no addons in .indus/addons and no agents in .indus/agents")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ADDON\tVERSION\tPATH")
	for _, a := range r.Addons {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", a.ID, a.Version, a.Path)
	}
	if len(r.Commands) > 0 {
		fmt.Fprintln(tw, "\nCOMMAND\tADDON\tSUMMARY")
		for _, c := range r.Commands {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Addon, c.Summary)
		}
	}
	if len(r.Gates) > 0 {
		fmt.Fprintln(tw, "\nGATE\tADDON\tTOOL\tREASON")
		for _, g := range r.Gates {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", g.Event, g.Addon, anyTool(g.Tool), g.Reason)
		}
	}
	if len(r.Interceptors) > 0 {
		fmt.Fprintln(tw, "\nINTERCEPTOR\tTOOL")
		for _, ic := range r.Interceptors {
			fmt.Fprintf(tw, "%s\t%s\n", ic.Addon, anyTool(ic.Tool))
		}
	}
	for _, t := range r.Tools {
		fmt.Fprintf(tw, "tool: %s\n", t)
	}
	writeProcesses(tw, r.Processes)
	if len(r.Grants) > 0 {
		fmt.Fprintln(tw, "\nSANDBOX GRANT\tADDON\tFILE")
		for _, g := range r.Grants {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", g, g.Addon, g.File)
		}
	}
	if len(r.Agents) > 0 {
		fmt.Fprintln(tw, "\nAGENT\tMODEL\tTOOLS\tFILE")
		for _, a := range r.Agents {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, a.Model, a.ToolCollection, a.File)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range r.Faults {
		fmt.Fprintln(w, "fault:", faultLine(f))
	}
	return nil
}

// anyTool names the tool a gate or interceptor matches.
func anyTool(name string) string {
	if name == "" {
		return "(any)"
	}
	return name
}

// faultLine reads "file:line: kind fault (addon x): message".
func faultLine(f addonFaultRow) string {
	s := ""
	if f.File != "" {
		s = f.File
		if f.Line > 0 {
			s += fmt.Sprintf(":%d", f.Line)
		}
		s += ": "
	}
	s += f.Kind.String() + " fault"
	if f.Addon != "" {
		s += " (addon " + string(f.Addon) + ")"
	}
	return s + ": " + f.Message
}

func newAddonsCheckCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Validate every addon; exit 1 on any fault",
		Long: `Load every addon of .indus/addons as a session would, and read every
subagent profile of .indus/agents, and report each fault with its file and
line.

Exit status: 0 when every addon loads cleanly, 1 on any fault.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadAddons(cmd.Context(), opts)
			if err != nil {
				return err
			}
			for _, f := range r.Faults {
				fmt.Fprintln(cmd.ErrOrStderr(), faultLine(f))
			}
			if len(r.Faults) > 0 {
				return &failure{fmt.Errorf("%d addon fault(s); %d addon(s) loaded", len(r.Faults), len(r.Addons))}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d addon(s) ok\n", len(r.Addons))
			return nil
		},
	}
}

func newAddonsRunCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run NAME [ARGS...]",
		Short: "Run an addon command",
		Long: `Run the addon command NAME. Each of ARGS reaches the command as one
positional parameter ("$@"), exactly as given: quotes, ';' and '$(...)' in
them are text, never shell. Everything after NAME is an argument, flags too.

Exit status: the command's own when it ran (1 for any failure), 2 when
there is no such command.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := *opts
			o.NoMCP = true // a command needs no MCP server
			s, err := boot(cmd.Context(), &o, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer s.Close()
			b := s.Addons()
			if b == nil {
				return usagef("no addons are loaded (--no-addons or --no-tools)")
			}
			if _, ok := b.Command(args[0]); !ok {
				return usagef("no addon command %q; see indusr addons list", args[0])
			}
			out, err := b.RunCommand(cmd.Context(), args[0], args[1:], s.Dir())
			fmt.Fprint(cmd.OutOrStdout(), out.Stdout)
			fmt.Fprint(cmd.ErrOrStderr(), out.Stderr)
			if err != nil {
				return &failure{err}
			}
			if out.Code != 0 {
				return errToolFailed
			}
			return interrupted(cmd.Context())
		},
	}
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// writeProcesses lists the Tier-1 addons: state, recent crashes, log, the
// reason of a quarantine, and the handlers each declared.
func writeProcesses(w io.Writer, ps []rpc.Status) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintln(w, "\nPROCESS\tSTATE\tCRASHES\tLOG")
	for _, p := range ps {
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\n", p.ID, p.State, p.Crashes, p.Log)
		if p.Why != nil {
			fmt.Fprintf(w, "  quarantined since %s: %s\n", p.Why.Since.Local().Format(time.DateTime), p.Why.Reason)
		}
		if d := p.Declared; d != nil {
			for _, h := range d.Handlers {
				on := h.Event
				if h.Tool != "" {
					on += " " + h.Tool
				}
				fmt.Fprintf(w, "  %s %s (%s)\n", h.Kind, on, h.ID)
			}
			for _, ic := range d.Interceptors {
				tool := ic.Tool
				if tool == "" {
					tool = "(any)"
				}
				fmt.Fprintf(w, "  interceptor %s (%s)\n", tool, ic.ID)
			}
		}
	}
}
