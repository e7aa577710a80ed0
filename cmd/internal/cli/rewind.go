package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/deck/checkpoint"
)

// listFilesShown is how many file names one row of `rewind list` shows
// before it says "and N more"; a node that touched fifty files should not
// push the table off the screen.
const listFilesShown = 4

func newRewindCmd(opts *options) *cobra.Command {
	var dryRun, force bool
	cmd := &cobra.Command{
		Use:   "rewind NODE",
		Short: "Undo file changes made by write and edit",
		Long: `Every change the write and edit tools make is checkpointed in the workspace
(.indusvx/checkpoints): each call is its own node unless the host groups calls.

  indusr rewind list            show the nodes, oldest first
  indusr rewind NODE --dry-run  show what rewinding would change
  indusr rewind NODE            put the files back as they were before NODE
  indusr rewind NODE --force    the same, also over files changed since
  indusr rewind gc              prune old checkpoints (see rewind gc --help)

Rewinding to NODE undoes NODE and every later node: each file they touched
gets back the content it had before the first of them changed it, and files
they created are deleted. NODE is an id from the list, a unique prefix of
one, or "last" for the newest. The undone nodes leave the history.

A file that changed since the last undone node left it (a git checkout, an
editor, another tool) has drifted: rewind shows how it differs and refuses
to touch anything, so outside work is never thrown away silently. --dry-run
shows the drift too; --force rewinds anyway and throws those changes away.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("rewind needs one node id (see `indusr rewind list`)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			return rewind(cmd.OutOrStdout(), checkpoint.ForWorkspace(dir), dir, args[0], dryRun, force)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show the diff of what would change and change nothing")
	cmd.Flags().BoolVar(&force, "force", false, "rewind files that changed since the checkpoint too, throwing those changes away")
	cmd.AddCommand(newRewindGCCmd(opts))
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the checkpoint nodes: id, time, tools, files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			return listNodes(cmd.OutOrStdout(), checkpoint.ForWorkspace(dir), dir, opts.JSON)
		},
	})
	return cmd
}

func listNodes(w io.Writer, s checkpoint.Store, dir string, asJSON bool) error {
	nodes, err := s.Nodes()
	if err != nil {
		return &failure{err}
	}
	if asJSON {
		if nodes == nil {
			nodes = []checkpoint.Node{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(nodes)
	}
	if len(nodes) == 0 {
		_, err := fmt.Fprintf(w, "No checkpoints in %s: write and edit record one for every change.\n", dir)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tTIME\tTOOLS\tFILES")
	for _, n := range nodes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n.ID, n.Time.Local().Format(time.DateTime),
			strings.Join(n.Tools, ","), fileList(n.Files, dir))
	}
	return tw.Flush()
}

// fileList names a node's files relative to dir, marking those the node
// created.
func fileList(files []checkpoint.Entry, dir string) string {
	var names []string
	for i, e := range files {
		if i == listFilesShown {
			names = append(names, fmt.Sprintf("and %d more", len(files)-i))
			break
		}
		name := relTo(dir, e.Path)
		if !e.Exists {
			name += " (new)"
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

func relTo(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

func rewind(w io.Writer, s checkpoint.Store, dir, node string, dryRun, force bool) error {
	// Only a node id that names nothing is the user's to fix (exit 2); a
	// store or file that cannot be read is a failure (exit 1).
	nodes, err := s.Nodes()
	if err != nil {
		return &failure{err}
	}
	if len(nodes) == 0 {
		return usagef("no checkpoints in %s: nothing to rewind", dir)
	}
	if _, err := checkpoint.FindNode(nodes, node); err != nil {
		return usagef("%v", err)
	}
	plan, err := checkpoint.NewPlan(s, node, []string{dir})
	if err != nil {
		return &failure{err}
	}
	plan.Force = force
	name := func(p string) string { return relTo(dir, p) }
	t := plan.Target
	fmt.Fprintf(w, "Rewinding to before %s (%s, %s) undoes %d %s.\n", t.ID, t.Time.Local().Format(time.DateTime),
		strings.Join(t.Tools, ","), len(plan.Undone), plural(len(plan.Undone), "node", "nodes"))
	drift := plan.Drifted()
	if len(drift) > 0 {
		names := make([]string, len(drift))
		for i, c := range drift {
			names[i] = name(c.Path)
		}
		fmt.Fprintf(w, "Changed since the checkpoint (by something else): %s. How they differ from what the checkpoint left:\n", strings.Join(names, ", "))
		fmt.Fprint(w, plan.DriftDiff(name))
		fmt.Fprintln(w, "What the rewind would change:")
	}
	fmt.Fprint(w, plan.Diff(name))
	restored, deleted := plan.Counts()
	if dryRun {
		fmt.Fprintf(w, "Dry run: would restore %d %s and delete %d; nothing was changed.\n",
			restored, plural(restored, "file", "files"), deleted)
		if len(drift) > 0 && !force {
			_, err := fmt.Fprintf(w, "%d %s changed since the checkpoint: the rewind needs --force, which throws those changes away.\n",
				len(drift), plural(len(drift), "file", "files"))
			return err
		}
		return nil
	}
	if len(drift) > 0 && !force {
		return &failure{fmt.Errorf("not rewinding: %d %s changed since the checkpoint recorded them (diff above); nothing was changed. Keep that work, or run again with --force to throw it away",
			len(drift), plural(len(drift), "file", "files"))}
	}
	if err := plan.Apply(s, []string{dir}); err != nil {
		return &failure{fmt.Errorf("rewind incomplete (the history is kept, so you can retry): %w", err)}
	}
	_, err = fmt.Fprintf(w, "Restored %d %s and deleted %d.\n", restored, plural(restored, "file", "files"), deleted)
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func newRewindGCCmd(opts *options) *cobra.Command {
	var (
		maxAge  time.Duration
		maxSize string
	)
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Prune old checkpoints: older than --max-age, then the oldest past --max-size",
		Long: `Drop checkpoint nodes older than --max-age, then the oldest ones until the
stored content of the rest fits in --max-size (the newest node always
stays), and free what no remaining node needs. Every indusr call session
does the same with the defaults when it starts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if maxAge <= 0 {
				return usagef("--max-age must be more than zero (e.g. 168h)")
			}
			limit, err := parseSize(maxSize)
			if err != nil {
				return usagef("--max-size %q: %v", maxSize, err)
			}
			dir, err := workDir(opts)
			if err != nil {
				return err
			}
			p, err := checkpoint.ForWorkspace(dir).Prune(maxAge, limit, time.Now())
			if err != nil {
				return &failure{err}
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "Pruned %d %s, freeing %s.\n", p.Nodes, plural(p.Nodes, "node", "nodes"), sizeString(p.Bytes))
			return err
		},
	}
	cmd.Flags().DurationVar(&maxAge, "max-age", checkpoint.DefaultMaxAge, "drop nodes older than this")
	cmd.Flags().StringVar(&maxSize, "max-size", "1GiB", "keep at most this much stored content (e.g. 500MiB, 2GiB)")
	return cmd
}

// parseSize reads a size: a number of bytes with an optional unit, KiB,
// MiB, GiB (powers of 1024) or KB, MB, GB (powers of 1000).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	var n int64
	if _, err := fmt.Sscanf(num, "%d", &n); err != nil || fmt.Sprint(n) != num {
		return 0, fmt.Errorf("give a whole number with an optional unit (KiB, MiB, GiB)")
	}
	if n <= 0 {
		return 0, fmt.Errorf("must be more than zero")
	}
	return n * mult, nil
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
