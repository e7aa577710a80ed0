package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/session"
	"github.com/indusagi/induscode/tool"
)

// toolRow is one line of `indusr tools`.
type toolRow struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Summary     string          `json:"summary,omitempty"`
	Profiles    []string        `json:"profiles"`
	ReadOnly    bool            `json:"readOnly"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func newToolsCmd(opts *options) *cobra.Command {
	var refresh bool
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the tools of the session",
		Long: `List the session's tools: built-ins, app cards and the tools of the MCP
servers. A server whose tool list was cached (in .indusvx/mcp-cache, less
than a day ago, for its exact config row) is not started; --refresh starts
every server and lists afresh.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sopts := sessionOptions(opts, cmd.ErrOrStderr())
			sopts.UseCache = !refresh
			s, err := session.Catalog(cmd.Context(), sopts)
			if err != nil {
				return bootError(err)
			}
			defer s.Close()
			if err := interrupted(cmd.Context()); err != nil {
				// The mount was cut short: the list would be incomplete.
				return err
			}
			rows := rowsOf(s.Tools())
			// Grafted tools the profile or --tools left out are named with
			// the reason: on stdout under the table, on stderr beside JSON.
			omitted := cmd.OutOrStdout()
			if opts.JSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(rows); err != nil {
					return err
				}
				omitted = cmd.ErrOrStderr()
			} else if err := writeTable(cmd.OutOrStdout(), rows); err != nil {
				return err
			}
			for _, o := range s.Omitted() {
				fmt.Fprintf(omitted, "left out: %s: %s\n", o.Name, o.Reason)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&refresh, "refresh", false, "start every MCP server and list its tools afresh, ignoring the cache")
	return cmd
}

func rowsOf(tools []tool.Tool) []toolRow {
	rows := make([]toolRow, 0, len(tools))
	for _, t := range tools {
		s := t.Spec()
		row := toolRow{ID: s.Name, Title: s.Label, ReadOnly: s.ReadOnly, Description: s.Description,
			InputSchema: s.InputSchema, Profiles: []string{}}
		if c, ok := deck.Find(s.Name); ok {
			row.Title, row.Summary = c.Title, c.Summary
			for _, p := range c.Profiles {
				row.Profiles = append(row.Profiles, p.String())
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func writeTable(w io.Writer, rows []toolRow) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "(no tools)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tPROFILES\tREAD-ONLY")
	for _, r := range rows {
		profiles := strings.Join(r.Profiles, ",")
		if profiles == "" {
			profiles = "-"
		}
		ro := "no"
		if r.ReadOnly {
			ro = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Title, profiles, ro)
	}
	return tw.Flush()
}
