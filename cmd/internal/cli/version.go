package cli

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at link time (-ldflags "-X .../cli.version=v1.2.3"); the
// module version or VCS revision from the build info fills in otherwise.
var version = ""

func versionString() string {
	v := version
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		if v == "" {
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					v = "devel-" + s.Value[:12]
				}
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	return fmt.Sprintf("indusr %s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// semver is the X.Y.Z at the start of a version.
var semver = regexp.MustCompile(`^v?(\d+\.\d+\.\d+)`)

// shortVersion is -v's answer, "X.Y.Z (indusr)", the form of Claude
// Code's own ("2.1.332 (Claude Code)"): the Agent SDK for Python runs
// the executable with -v and reads the X.Y.Z at the start. A build
// without a release version (a clone's) answers 0.0.0.
func shortVersion() string {
	v := version
	if info, ok := debug.ReadBuildInfo(); ok && v == "" {
		v = info.Main.Version
	}
	n := "0.0.0"
	if m := semver.FindStringSubmatch(v); m != nil {
		n = m[1]
	}
	return n + " (indusr)"
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionString())
			return err
		},
	}
}
