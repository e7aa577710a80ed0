package conductor

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

// maxInstructions bounds the AGENTS.md / CLAUDE.md folded into the
// briefing: a project's notes, not a place for a whole manual, and every
// turn pays for them. A longer file is cut there; one larger than
// workspace.MaxBriefingFile is not read at all.
const maxInstructions = 64 << 10

// Briefing composes the system prompt from the tools actually present
// (after provisioning and grafting), the workspace's instructions
// (AGENTS.md, else CLAUDE.md) and the caller's addition.
func Briefing(dir string, specs []tool.Spec, appendix string) string {
	text, _ := briefing(dir, specs, appendix)
	return text
}

// briefing is Briefing and the warnings of the instructions files passed
// over.
func briefing(dir string, specs []tool.Spec, appendix string) (string, []string) {
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
	name, text, warnings := instructions(dir)
	if text != "" {
		fmt.Fprintf(&b, "\n# Project instructions (%s)\n\n%s\n", name, strings.TrimSpace(text))
	}
	if appendix = strings.TrimSpace(appendix); appendix != "" {
		b.WriteString("\n" + appendix + "\n")
	}
	return b.String(), warnings
}

// instructions reads AGENTS.md, or CLAUDE.md when there is none, beneath
// dir, up to maxInstructions bytes. A file that is not read (a link out of
// the workspace, a named pipe, a device, a file too large) is passed over
// with a warning naming it.
func instructions(dir string) (name, text string, warnings []string) {
	for _, n := range []string{"AGENTS.md", "CLAUDE.md"} {
		b, err := workspace.ReadRepoFile(dir, n, workspace.MaxBriefingFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("briefing: %v", err))
			continue
		}
		if len(b) > maxInstructions {
			b = b[:maxInstructions]
		}
		if len(strings.TrimSpace(string(b))) > 0 {
			return n, string(b), warnings
		}
	}
	return "", "", warnings
}
