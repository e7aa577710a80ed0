package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/internal/searchindex"
)

// indexDisabled reports whether grep runs without its index (--no-index,
// or INDUSR_NO_INDEX=1).
func indexDisabled(opts *options) bool {
	return opts.NoIndex || os.Getenv("INDUSR_NO_INDEX") == "1"
}

// newIndexCmd is `indusr index`: build, show and drop grep's index.
func newIndexCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "build, show or drop grep's search index (.indusvx/index/)",
		Long: `grep keeps a trigram index of the workspace under .indusvx/index/ so that
repeated searches skip the files that cannot match. The index never changes
what grep answers: files changed since the build are searched directly, and a
damaged index is not used. indusr serve builds it in the background; a
one-shot call uses it when it exists. --no-index (or INDUSR_NO_INDEX=1) turns
it off.`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "build",
		Short: "index the workspace's searchable files now (replaces the index)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			start := time.Now()
			st, err := searchindex.Build(cmd.Context(), dir)
			if err != nil {
				return &failure{err}
			}
			if opts.JSON {
				return printIndexJSON(cmd, st)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "indexed %d files (%s) in %s; index %s", st.Files, sizeString(st.Bytes),
				time.Since(start).Round(time.Millisecond), sizeString(st.Size))
			if st.Skipped > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "; %d files left out (too large or unreadable), grep scans them", st.Skipped)
			}
			fmt.Fprintln(cmd.OutOrStdout())
			return nil
		},
	}, &cobra.Command{
		Use:   "status",
		Short: "show the index: size, files, age, and files changed since (which grep scans)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			st := searchindex.Open(dir).Status()
			if opts.JSON {
				return printIndexJSON(cmd, st)
			}
			out := cmd.OutOrStdout()
			switch {
			case st.Problem != "":
				fmt.Fprintf(out, "index %s is not used: %s\nindusr index build replaces it\n", st.Path, st.Problem)
			case !st.Exists:
				fmt.Fprintf(out, "no index yet (%s); indusr index build makes one, indusr serve builds it in the background\n", st.Path)
			default:
				fmt.Fprintf(out, "index %s\n  size   %s\n  files  %d (%s)\n  built  %s (%s ago)\n  dirty  %d files changed since, searched directly\n",
					st.Path, sizeString(st.Size), st.Files, sizeString(st.Bytes), st.Built.Local().Format(time.DateTime),
					time.Since(st.Built).Round(time.Second), st.Dirty)
			}
			if indexDisabled(opts) {
				fmt.Fprintln(out, "grep does not use it now: --no-index or INDUSR_NO_INDEX=1")
			}
			return nil
		},
	}, &cobra.Command{
		Use:   "drop",
		Short: "remove the index (grep scans until the next build)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			if err := searchindex.Open(dir).Drop(); err != nil {
				return &failure{err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), "index dropped")
			return nil
		},
	})
	return cmd
}

func printIndexJSON(cmd *cobra.Command, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(cmd.OutOrStdout(), string(b))
	return err
}
