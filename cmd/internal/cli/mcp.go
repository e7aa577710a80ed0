package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/bridge/ledger"
	"github.com/indusagi/induscode/session"
	"github.com/indusagi/induscode/workspace"
)

// ledgerPath is where a workspace's ledger log lives.
func ledgerPath(dir string) string { return workspace.At(dir).Ledger() }

func newMCPCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Inspect the MCP servers of the session",
		Long: `MCP servers come from the --mcp config files or directories, or else from
the working directory: .indusvx/mcp.json, .mcp.json (the Claude Code format),
$XDG_CONFIG_HOME/indusvx/mcp.json, ~/.indusvx/agent/mcp.json and
~/.indusvx/agent/mcp-servers.json, merged in that order. Their tools are
grafted as SERVER__TOOL: see them with "indusr tools", call one with
"indusr call SERVER__TOOL".`,
	}
	cmd.AddCommand(newMCPStatusCmd(opts), newMCPLedgerCmd(opts), newMCPTrustCmd(opts))
	return cmd
}

func newMCPStatusCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Mount the MCP servers and show the health of each",
		Long: `Mount the configured MCP servers and show, for each, its transport, state,
tool count, restarts and last error, and any faults of its tool list.

Exit status: 0 when every server is ready (or none is configured), 1 when
one is not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			sopts := sessionOptions(opts, cmd.ErrOrStderr())
			sopts.Dir = dir
			fleet, err := session.MountFleet(cmd.Context(), sopts)
			if err != nil {
				return bootError(err)
			}
			var status []bridge.ServerStatus
			if fleet != nil {
				status = fleet.Status()
				fleet.Close()
			}
			out := cmd.OutOrStdout()
			pending := unapprovedServers(opts, sopts)
			if opts.JSON {
				if status == nil {
					status = []bridge.ServerStatus{}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(status); err != nil {
					return &failure{err}
				}
				out = cmd.ErrOrStderr() // the JSON stays JSON
			} else if len(status) > 0 || len(pending) == 0 {
				if err := writeStatus(out, status, dir); err != nil {
					return &failure{err}
				}
			}
			for _, u := range pending {
				fmt.Fprintf(out, "%s: not started: declared by %s and not approved as it is; review it and run: indusr mcp trust\n", u.Name, u.Where)
			}
			down := 0
			for _, st := range status {
				if st.State != bridge.Ready {
					down++
				}
			}
			if down > 0 {
				return &failure{fmt.Errorf("%d of %d MCP servers not ready", down, len(status))}
			}
			return nil
		},
	}
}

// unapprovedServers are the servers of the workspace's own configs that
// do not start for want of an approval.
func unapprovedServers(opts *options, sopts session.Options) []*session.Unit {
	if len(opts.MCP) > 0 {
		return nil
	}
	a, err := session.ReadApprovals(sopts, session.MCPGroup)
	if err != nil {
		return nil // the session said why when it mounted
	}
	var out []*session.Unit
	for _, u := range a.Group(session.MCPGroup).Units {
		if !a.MayRun(u) {
			out = append(out, u)
		}
	}
	return out
}

func writeStatus(w io.Writer, status []bridge.ServerStatus, dir string) error {
	if len(status) == 0 {
		_, err := fmt.Fprintf(w, "(no MCP servers configured for %s; see \"indusr mcp --help\" for where they are read from)\n", dir)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTRANSPORT\tSTATE\tTOOLS\tRESTARTS\tERROR")
	for _, st := range status {
		errText := st.LastError
		if errText == "" {
			errText = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", st.Name, st.Transport, st.State, st.Tools, st.Restarts, errText)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, st := range status {
		for _, f := range st.Faults {
			fmt.Fprintf(w, "%s: fault: %s\n", st.Name, f)
		}
	}
	return nil
}

func newMCPLedgerCmd(opts *options) *cobra.Command {
	var server string
	var tail int
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Print the ledger log of MCP tool enrollments",
		Long: `Print the workspace's ledger log (.indusvx/ledger.jsonl): every change of
the grafted MCP tools (a tool enrolled, changed or retired), oldest first.
A command whose servers list the same tools as before writes nothing.
--server keeps the events of one server, --tail the last N events. With
--json, one JSON entry per line, as the log stores them. Nothing is mounted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tail < 0 {
				return usagef("--tail %d: give a number of events, 0 or more (0 shows all)", tail)
			}
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			path := ledgerPath(dir)
			entries, warnings, err := ledger.ReadLog(path)
			if err != nil {
				return &failure{err}
			}
			for _, w := range warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "indusr: mcp:", w)
			}
			shown, live := selectLedger(entries, server, tail)
			out := cmd.OutOrStdout()
			if opts.JSON {
				enc := json.NewEncoder(out)
				for _, e := range shown {
					if err := enc.Encode(e); err != nil {
						return &failure{err}
					}
				}
				return nil
			}
			return writeLedger(out, shown, entries, path, live)
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "show only the events of the MCP server `NAME`")
	cmd.Flags().IntVar(&tail, "tail", 0, "show only the last `N` events (0: all)")
	return cmd
}

// selectLedger keeps the events of server (all when empty), then the last
// tail of them (all when 0), and counts the tools live at the end of the
// whole log (of that server only, when one is named).
func selectLedger(entries []ledger.Entry, server string, tail int) (shown []ledger.Entry, live int) {
	snap := ledger.Reduce(entries)
	live = snap.Len()
	shown = entries
	if server != "" {
		live = snap.Count(server)
		shown = nil
		for _, e := range entries {
			if e.Server == server {
				shown = append(shown, e)
			}
		}
	}
	if tail > 0 && len(shown) > tail {
		shown = shown[len(shown)-tail:]
	}
	return shown, live
}

// writeLedger prints the events shown; all is the whole log, where a
// retire finds the name of the tool its key enrolled.
func writeLedger(w io.Writer, shown, all []ledger.Entry, path string, live int) error {
	if len(all) == 0 {
		_, err := fmt.Fprintf(w, "(the ledger at %s is empty)\n", path)
		return err
	}
	if len(shown) == 0 {
		_, err := fmt.Fprintf(w, "(none of the %d events in the ledger at %s is of that server)\n", len(all), path)
		return err
	}
	names := make(map[ledger.Key]string)
	for _, e := range all {
		if e.Capability != nil {
			names[e.Key] = e.Capability.Spec().Name
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SEQ\tAT\tOP\tSERVER\tTOOL\tKEY")
	for _, e := range shown {
		name := names[e.Key]
		if e.Capability != nil {
			name = e.Capability.Spec().Name
		}
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", e.Seq, e.At, e.Op, e.Server, name, e.Key)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d of %d events shown; %d tools live at the end of the log\n", len(shown), len(all), live)
	return err
}

func newMCPTrustCmd(opts *options) *cobra.Command {
	var revoke, yes bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Review and approve the MCP servers of this workspace's own config",
		Long: `A repository can carry an MCP config (.indusvx/mcp.json, .mcp.json) whose
servers are commands that run as you. indusr starts them only once you have
approved them: "indusr mcp trust" shows every server with each field that
changes what runs or what is sent (command, args, env, cwd, url, headers,
with ${VARS} as written, never expanded) and the workspace files its command
runs, says what changed since your last approval, and asks (y/N) before it
records your approval in $XDG_CONFIG_HOME/indusvx/approvals.json. With no
terminal to ask on, --yes approves. An approval covers the config and those
files: a change to either needs a new one. --revoke withdraws it. Servers
from --mcp paths and from your user-level configs need no approval;
INDUSR_TRUST_PROJECT_MCP=1 trusts the workspace's config for one run (CI).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			sopts := sessionOptions(opts, cmd.ErrOrStderr())
			if revoke {
				had, err := session.Revoke(sopts, session.MCPGroup)
				if err != nil {
					return bootError(err)
				}
				if had {
					fmt.Fprintln(out, "approval withdrawn: this workspace's MCP servers will not start until you run indusr mcp trust again")
				} else {
					fmt.Fprintln(out, "this workspace had no approval to withdraw")
				}
				return nil
			}
			a, err := session.ReadApprovals(sopts, session.MCPGroup)
			if err != nil {
				return bootError(err)
			}
			g := a.Group(session.MCPGroup)
			if len(g.Units) == 0 {
				fmt.Fprintf(out, "this workspace's config declares no MCP server (%s); nothing to approve\n", relFiles(a.Root, g.Files))
				return nil
			}
			fmt.Fprintln(out, "These servers run as you whenever indusr mounts them in this workspace:")
			writeUnits(out, a, session.MCPGroup)
			if g.Approved {
				fmt.Fprintf(out, "already approved for %s as it is\n", a.Root)
				return nil
			}
			if err := confirm(cmd.InOrStdin(), out, isTerminal(cmd.InOrStdin()), yes, "indusr mcp trust", "INDUSR_TRUST_PROJECT_MCP"); err != nil {
				return &failure{err}
			}
			if _, err = session.Approve(sopts, session.MCPGroup); err != nil {
				return &failure{err}
			}
			fmt.Fprintf(out, "approved for %s; a change to the config or to a file it runs needs a new approval\n", a.Root)
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "withdraw the approval of this workspace's MCP config")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve without asking (when there is no terminal)")
	return cmd
}

// relFiles names files relative to dir, comma-separated.
func relFiles(dir string, files []string) string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = relTo(dir, f)
	}
	return strings.Join(out, ", ")
}
