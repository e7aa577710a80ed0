package cli

import (
	"encoding/json"
	"fmt"
	"io"
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
	cmd.AddCommand(newMCPStatusCmd(opts), newMCPLedgerCmd(opts))
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
			sopts, err := sessionOptions(opts, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
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
			if opts.JSON {
				if status == nil {
					status = []bridge.ServerStatus{}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(status); err != nil {
					return &failure{err}
				}
			} else if err := writeStatus(out, status, dir); err != nil {
				return &failure{err}
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
	return &cobra.Command{
		Use:   "ledger",
		Short: "Print the ledger log of MCP tool enrollments",
		Long: `Print the workspace's ledger log (.indusvx/ledger.jsonl): every enroll and
retire event of grafted MCP tools, oldest first. With --json, one JSON entry
per line, as the log stores them. Nothing is mounted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			out := cmd.OutOrStdout()
			if opts.JSON {
				enc := json.NewEncoder(out)
				for _, e := range entries {
					if err := enc.Encode(e); err != nil {
						return &failure{err}
					}
				}
				return nil
			}
			return writeLedger(out, entries, path)
		},
	}
}

func writeLedger(w io.Writer, entries []ledger.Entry, path string) error {
	if len(entries) == 0 {
		_, err := fmt.Fprintf(w, "(the ledger at %s is empty)\n", path)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SEQ\tAT\tOP\tSERVER\tTOOL\tKEY")
	names := make(map[ledger.Key]string) // a retire names the tool its key enrolled
	for _, e := range entries {
		name := names[e.Key]
		if e.Capability != nil {
			name = e.Capability.Spec().Name
			names[e.Key] = name
		}
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", e.Seq, e.At, e.Op, e.Server, name, e.Key)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	snap := ledger.Reduce(entries)
	_, err := fmt.Fprintf(w, "%d events; %d tools live at the end of the log\n", len(entries), snap.Len())
	return err
}
