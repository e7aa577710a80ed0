package conductor

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/indusagi/induscode/tool"
)

// maxInstructions bounds the AGENTS.md / CLAUDE.md folded into the
// briefing: a project's notes, not a place for a whole manual, and every
// turn pays for them.
const maxInstructions = 64 << 10

// Briefing composes the system prompt from the tools actually present
// (after provisioning and grafting), the workspace's instructions
// (AGENTS.md, else CLAUDE.md) and the caller's addition.
func Briefing(dir string, specs []tool.Spec, appendix string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are indusr, a coding agent working in the directory %s. "+
		"You act through tools: read and search before you change anything, make focused edits, "+
		"run the project's own checks when you can, and finish with a short answer that says what you did.\n", dir)
	if len(specs) > 0 {
		b.WriteString("\n# Tools\n")
		for _, s := range specs {
			desc, _, _ := strings.Cut(strings.TrimSpace(s.Description), "\n")
			ro := ""
			if s.ReadOnly {
				ro = " (read-only)"
			}
			fmt.Fprintf(&b, "- %s%s: %s\n", s.Name, ro, desc)
		}
	} else {
		b.WriteString("\nNo tools are available in this session: answer from what you know.\n")
	}
	if name, text := instructions(dir); text != "" {
		fmt.Fprintf(&b, "\n# Project instructions (%s)\n\n%s\n", name, strings.TrimSpace(text))
	}
	if appendix = strings.TrimSpace(appendix); appendix != "" {
		b.WriteString("\n" + appendix + "\n")
	}
	return b.String()
}

// instructions reads AGENTS.md, or CLAUDE.md when there is none, beneath
// dir (a link out of the workspace is not followed), up to
// maxInstructions bytes.
func instructions(dir string) (name, text string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", ""
	}
	defer root.Close()
	for _, n := range []string{"AGENTS.md", "CLAUDE.md"} {
		f, err := root.Open(n)
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, maxInstructions))
		f.Close()
		if err == nil && len(strings.TrimSpace(string(b))) > 0 {
			return n, string(b)
		}
	}
	return "", ""
}
