package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Exit codes and messages of call: a --timeout of zero or less is a usage
// error (absent means no limit), a batch with failed calls exits 1 and
// says how many, and a batch line over its limit names the limit and
// exits 2.
func TestCallExitCodes(t *testing.T) {
	t.Parallel()
	huge := `{"tool":"write","input":{"path":"big.txt","content":"` + strings.Repeat("x", maxBatchLine) + `"}}` + "\n"
	cases := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{"no timeout", []string{"call", "ls"}, "", ExitOK, ""},
		{"a timeout", []string{"call", "--timeout", "30s", "ls"}, "", ExitOK, ""},
		{"zero timeout", []string{"call", "--timeout", "0", "ls"}, "", ExitUsage, "--timeout must be more than zero"},
		{"negative timeout", []string{"call", "--timeout", "-1s", "ls"}, "", ExitUsage, "--timeout must be more than zero"},
		{"batch, all fine", []string{"call", "--batch"}, `{"tool":"ls"}` + "\n", ExitOK, ""},
		{"batch, two failed", []string{"call", "--batch"},
			`{"tool":"ls"}` + "\n" + `{"tool":"read","input":{"path":"missing.txt"}}` + "\n" + `not json` + "\n", ExitToolError, "2 of 3 calls failed"},
		{"batch, line over the limit", []string{"call", "--batch"}, `{"tool":"ls"}` + "\n" + huge, ExitUsage, "batch line 2 is longer than 64 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			args := append([]string{"-C", t.TempDir()}, c.args...)
			code := run(context.Background(), Program{}, args, strings.NewReader(c.stdin), &stdout, &stderr)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, stderr.String())
			}
			if c.stderr != "" && !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr lacks %q: %s", c.stderr, stderr.String())
			}
		})
	}
}
