package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

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
			out := cmd.OutOrStdout()
			type mode struct {
				Mode     string   `json:"mode"`
				Enforces []string `json:"enforces"`
			}
			report := struct {
				ABI     int    `json:"abi"`
				Error   string `json:"error,omitempty"`
				Seccomp bool   `json:"seccomp"`
				Modes   []mode `json:"modes"`
			}{ABI: r.ABI, Seccomp: r.Seccomp}
			if r.Err != nil {
				report.Error = r.Err.Error()
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
