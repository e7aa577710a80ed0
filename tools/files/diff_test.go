package files

import (
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/linediff"
)

func diffOf(before, after string) string {
	a, b := linediff.Lines(before), linediff.Lines(after)
	return unified("a/f", "b/f", a, b, linediff.Diff(a, b))
}

// The diff is cut at MaxDiffBytes with a note, between lines.
func TestUnifiedCut(t *testing.T) {
	t.Parallel()
	before := strings.Repeat("a line of text that will be replaced\n", 4000)
	after := strings.Repeat("a completely different line of text!\n", 4000)
	d := diffOf(before, after)
	if len(d) > MaxDiffBytes+200 || !strings.HasSuffix(d, "[diff cut at 50 KB; read the file to see the rest of the change]\n") {
		t.Errorf("diff of %d bytes ends %q", len(d), d[len(d)-100:])
	}
}
