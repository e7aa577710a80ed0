package cli

import (
	"strings"
	"testing"
)

// A typo in a subcommand is a usage error naming the nearest command, not
// a help page and exit 0 that looks like success.
func TestUnknownSubcommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		code   int
		stderr string // a substring; "" means stderr must be empty
		stdout string
	}{
		{[]string{"mcp", "stauts"}, ExitUsage, `unknown command "stauts" for "indusr mcp"; did you mean "status"? (its commands: ledger, status`, ""},
		{[]string{"mcp", "led"}, ExitUsage, `did you mean "ledger"?`, ""},
		{[]string{"mcp", "frobnicate"}, ExitUsage, `unknown command "frobnicate" for "indusr mcp" (its commands: ledger, status`, ""},
		{[]string{"mcp", "status", "extra"}, ExitUsage, `unknown command "extra" for "indusr mcp status"`, ""},
		{[]string{"tols"}, ExitUsage, "Did you mean this?\n\ttools", ""},
		// The group alone still shows its help.
		{[]string{"mcp"}, ExitOK, "", "Available Commands:"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr strings.Builder
			args := append([]string{"-C", t.TempDir(), "--no-mcp"}, tc.args...)
			code := run(t.Context(), Program{}, args, strings.NewReader(""), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr.String())
			}
			if tc.stderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.stderr)
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.stdout)
			}
		})
	}
}
