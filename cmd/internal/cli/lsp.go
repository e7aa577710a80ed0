package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/tools/lsp"
)

func newLSPCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Language servers: which are configured and installed",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "List the configured language servers, whether each is installed, and the file types it serves",
		Long: "Each language server starts on the first write, edit or symbols call that needs it and stops with the session; " +
			"a one-shot command shows \"installed\" for a server it would start. Configure servers in the \"lsp\" block of " +
			"$XDG_CONFIG_HOME/indusvx/settings.json or .indusvx/settings.json.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := lsp.LoadConfig(workspaceDir(opts.Dir))
			if err != nil {
				return err
			}
			m := lsp.NewManager(workspaceDir(opts.Dir), cfg)
			defer m.Close()
			rows := m.Status()
			if opts.JSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(rows)
			}
			if opts.NoLSP {
				fmt.Fprintln(cmd.OutOrStdout(), "language servers are off (--no-lsp)")
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(w, "LANGUAGE\tSTATE\tCOMMAND\tFILES")
			for _, r := range rows {
				state := r.State
				if state == "not started" {
					state = "installed"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.Language, state, r.Command, strings.Join(r.Files, " "))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			for _, r := range rows {
				if r.Detail != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", r.Language, r.Detail)
				}
			}
			return nil
		},
	})
	return cmd
}
