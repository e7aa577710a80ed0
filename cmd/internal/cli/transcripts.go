package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/transcript"
)

// newTranscriptsCmd is `indusr transcripts`: the workspace's
// conversations, newest first, for --resume; then those not signed by the
// user's indusr, and the damaged ones with why.
func newTranscriptsCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "transcripts",
		Short: "list the conversations of this workspace (newest first) for --resume",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			infos, err := transcript.List(dir)
			if err != nil {
				return &failure{err}
			}
			out := cmd.OutOrStdout()
			if opts.JSON {
				if infos == nil {
					infos = []transcript.Info{}
				}
				b, _ := json.MarshalIndent(infos, "", "  ")
				fmt.Fprintln(out, string(b))
				return nil
			}
			if len(infos) == 0 {
				fmt.Fprintln(out, "no conversations yet; indusr -p starts one")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tMODEL\tFIRST PROMPT")
			var damaged []transcript.Info
			for _, i := range infos {
				if i.Damaged != "" {
					damaged = append(damaged, i)
					continue
				}
				first := i.First
				if i.Unsigned {
					first = "(unsigned: --continue skips it; --resume " + i.ID + " signs it) " + first
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", i.ID, i.Updated.Local().Format("2006-01-02 15:04"), i.Messages, i.Model, first)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			// A conversation that cannot be resumed is named, never
			// left out: its absence would pass for its loss.
			for _, i := range damaged {
				fmt.Fprintf(out, "damaged, not resumable: %s: %s\n", i.ID, i.Damaged)
			}
			return nil
		},
	}
}
