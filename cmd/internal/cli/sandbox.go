package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
)

func newSandboxCmd(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "The sandbox of bash, processes, hooks and addon processes",
		Long: `The sandbox confines the commands a session starts with Linux Landlock.
--sandbox MODE (or INDUSR_SANDBOX) chooses the mode: read-only, workspace-write
or off (the default). Hooks and addon processes then run confined to the grants
of their manifest's [sandbox] table.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Report the kernel's Landlock ABI and what each mode enforces here",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := jail.Probe()
			if r.ABI > 0 && r.Mount == nil {
				r.Mount = probeMountTier()
			}
			out := cmd.OutOrStdout()
			type mode struct {
				Mode     string   `json:"mode"`
				Enforces []string `json:"enforces"`
			}
			report := struct {
				ABI       int    `json:"abi"`
				Error     string `json:"error,omitempty"`
				Seccomp   bool   `json:"seccomp"`
				MountTier bool   `json:"mountTier"`
				NoMount   string `json:"mountTierError,omitempty"`
				Helper    string `json:"helper,omitempty"`
				Modes     []mode `json:"modes"`
			}{ABI: r.ABI, Seccomp: r.Seccomp, MountTier: r.Mount == nil, Helper: jail.Helper()}
			if r.Err != nil {
				report.Error = r.Err.Error()
			}
			if r.Mount != nil {
				report.NoMount = r.Mount.Error()
			}
			for _, m := range jail.Modes() {
				report.Modes = append(report.Modes, mode{m.String(), r.Enforces(m)})
			}
			if opts.JSON {
				b, err := json.MarshalIndent(report, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(out, string(b))
			} else {
				if r.ABI > 0 {
					fmt.Fprintf(out, "Landlock ABI %d", r.ABI)
				} else {
					fmt.Fprintf(out, "Landlock: none (%v)", r.Err)
				}
				if r.Seccomp {
					fmt.Fprint(out, "; seccomp network filter available")
				}
				fmt.Fprintln(out)
				if r.Mount == nil {
					fmt.Fprintf(out, "mount tier for workspace-write: available (helper %s)\n", report.Helper)
				} else {
					fmt.Fprintf(out, "mount tier for workspace-write: not available (%v)\n", r.Mount)
				}
				for _, m := range report.Modes {
					fmt.Fprintf(out, "\n%s:\n  %s\n", m.Mode, strings.Join(m.Enforces, "\n  "))
				}
			}
			if r.ABI < 1 {
				return &failure{fmt.Errorf("read-only and workspace-write cannot be enforced here; only --sandbox off runs commands")}
			}
			return nil
		},
	})
	return cmd
}

// probeMountTier starts the sandbox's helper in namespaces of its own,
// through the supervised start, to see whether it may mount there.
func probeMountTier() error {
	cmd, why := jail.NamespaceProbe()
	if why != nil {
		return why
	}
	w := childproc.NewWard("")
	defer w.Close()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	w.Prepare(cmd)
	release, err := w.Start(cmd, true)
	if err != nil {
		return fmt.Errorf("starting %s in new namespaces: %w", cmd.Path, err)
	}
	err = cmd.Wait()
	release()
	if err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("%s", msg)
		}
		return fmt.Errorf("the helper %s: %w", cmd.Path, err)
	}
	return nil
}
