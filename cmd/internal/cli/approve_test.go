package cli

import (
	"errors"
	"strings"
	"testing"
)

// On a terminal, approving asks and only y or yes approves; with no
// terminal only --yes does, and the refusal says how.
func TestConfirm(t *testing.T) {
	for _, c := range []struct {
		in             string
		terminal, yes  bool
		want, question bool
	}{
		{"y\n", true, false, true, true},
		{"YES\n", true, false, true, true},
		{"\n", true, false, false, true},
		{"n\n", true, false, false, true},
		{"", true, false, false, true},
		{"y\n", false, false, false, false},
		{"", false, true, true, false},
	} {
		var out strings.Builder
		err := confirm(strings.NewReader(c.in), &out, c.terminal, c.yes, "indusr mcp trust", "INDUSR_TRUST_PROJECT_MCP")
		if got := err == nil; got != c.want {
			t.Errorf("%+v: approved %v (%v)", c, got, err)
		}
		if err != nil && !errors.Is(err, errNotApproved) {
			t.Errorf("%+v: %v is not errNotApproved", c, err)
		}
		if asked := strings.Contains(out.String(), "[y/N]"); asked != c.question {
			t.Errorf("%+v: asked %v (%q)", c, asked, out.String())
		}
		if !c.terminal && !c.yes && (err == nil || !strings.Contains(err.Error(), "indusr mcp trust --yes") || !strings.Contains(err.Error(), "INDUSR_TRUST_PROJECT_MCP=1")) {
			t.Errorf("no terminal: %v; want the way to approve", err)
		}
	}
}
