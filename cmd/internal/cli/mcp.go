package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/bridge/ledger"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/workspace"
)

// ledgerPath is where a workspace's ledger log lives.
func ledgerPath(dir string) string { return workspace.At(dir).Ledger() }

// mcpConfig resolves the servers to mount: the --mcp paths (files or
// directories) in order, else the configuration of dir. Config warnings go
// to stderr; a server name declared by two --mcp paths keeps its first
// declaration.
func mcpConfig(opts *options, dir string, stderr io.Writer) []bridge.ServerConfig {
	var paths []string
	for _, p := range opts.MCP {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		paths = []string{dir}
	}
	var out []bridge.ServerConfig
	seen := make(map[string]string)
	for _, p := range paths {
		servers, warnings := bridge.LoadConfig(p)
		for _, w := range warnings {
			fmt.Fprintln(stderr, "indusr: mcp:", w)
		}
		for _, s := range servers {
			if first, dup := seen[s.Name]; dup {
				if first != s.Source {
					fmt.Fprintf(stderr, "indusr: mcp: %s: %s: server %q is already declared in %s; this declaration is ignored\n", s.Source, s.Row, s.Name, first)
				}
				continue
			}
			seen[s.Name] = s.Source
			out = append(out, s)
		}
	}
	return out
}

// mountMCP mounts the configured servers of the session in dir, with the
// workspace's ledger log and server logs under dir/.indusvx. It returns nil
// when no server is configured. When report is set, servers that failed are
// reported on stderr, with the faults of every server's tool list.
func mountMCP(ctx context.Context, opts *options, dir string, stderr io.Writer, report bool) *bridge.Fleet {
	servers := mcpConfig(opts, dir, stderr)
	if len(servers) == 0 {
		return nil
	}
	fleet := bridge.Mount(ctx, servers, bridge.Options{
		Dir:           dir,
		LedgerPath:    ledgerPath(dir),
		LogDir:        workspace.At(dir).MCPLogs(),
		ClientName:    "indusr",
		ClientVersion: versionString(),
	})
	for _, w := range fleet.Warnings() {
		fmt.Fprintln(stderr, "indusr: mcp:", w)
	}
	if report {
		for _, st := range fleet.Status() {
			if st.State != bridge.Ready {
				fmt.Fprintf(stderr, "indusr: mcp: server %s is %s: %s\n", st.Name, st.State, st.LastError)
			}
			// A tool dropped or changed by a fault of its server (a name
			// collision, a schema repaired) is said, not skipped silently.
			for _, f := range st.Faults {
				fmt.Fprintf(stderr, "indusr: mcp: server %s: %s\n", st.Name, f)
			}
		}
	}
	return fleet
}

// graftMCP mounts the session's MCP servers and grafts their tools onto d,
// after the built-ins. It returns the fleet, which the caller must close,
// or nil when no server is configured.
func graftMCP(ctx context.Context, opts *options, dir string, d *deck.Deck, stderr io.Writer) *bridge.Fleet {
	fleet := mountMCP(ctx, opts, dir, stderr, true)
	if fleet == nil {
		return nil
	}
	if err := d.Graft(fleet.Tools()...); err != nil {
		fmt.Fprintln(stderr, "indusr: mcp:", err)
	}
	return fleet
}

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
			fleet := mountMCP(cmd.Context(), opts, dir, cmd.ErrOrStderr(), false)
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
