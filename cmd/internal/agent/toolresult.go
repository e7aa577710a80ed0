package agent

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/indusagi/induscode/provider"
)

// toolUseResult is a user message's tool_use_result: the call's outcome
// as a program reads it, in the shape Claude Code gives its own tool of
// the same kind. A failed call is its message after "Error: "; a read is
// the file's lines without their numbers; bash is its output; an edit is
// the change as hunks; any other tool is the JSON it gave beside its
// text, else its text.
func toolUseResult(use, res provider.Block, dir string) any {
	if res.IsError {
		return "Error: " + res.Text
	}
	var in struct {
		Path       string `json:"path"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
		Content    string `json:"content"`
	}
	json.Unmarshal(use.Input, &in)
	switch use.Name {
	case "read":
		if f, ok := readFile(res.Text); ok {
			f.FilePath = absPath(dir, in.Path)
			return map[string]any{"type": "text", "file": f}
		}
	case "bash":
		out := strings.TrimSuffix(strings.TrimSuffix(res.Text, "exit code 0"), "\n")
		return map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
	case "edit", "write":
		var change struct {
			Path    string `json:"path"`
			Diff    string `json:"diff"`
			Created bool   `json:"created"`
		}
		if json.Unmarshal(res.Structured, &change) == nil && change.Path != "" {
			out := map[string]any{"filePath": absPath(dir, change.Path), "structuredPatch": hunks(change.Diff)}
			if use.Name == "edit" {
				out["oldString"], out["newString"], out["replaceAll"] = in.OldString, in.NewString, in.ReplaceAll
			} else {
				out["type"], out["content"] = "update", in.Content
				if change.Created {
					out["type"] = "create"
				}
			}
			return out
		}
	}
	if len(res.Structured) > 0 {
		return res.Structured
	}
	return res.Text
}

// readFile is what read printed, as Claude Code's Read reports a file:
// the lines without read's number prefixes, how many, and the first's
// number. Text that is not all numbered lines (an image, a notice) is no
// file.
type readOut struct {
	FilePath  string `json:"filePath"`
	Content   string `json:"content"`
	NumLines  int    `json:"numLines"`
	StartLine int    `json:"startLine"`
}

var numbered = regexp.MustCompile(`^ *(\d+)\t`)

func readFile(text string) (readOut, bool) {
	lines := strings.Split(text, "\n")
	var out readOut
	var content []string
	for i, l := range lines {
		m := numbered.FindStringSubmatch(l)
		if m == nil {
			return readOut{}, false
		}
		if i == 0 {
			out.StartLine, _ = strconv.Atoi(m[1])
		}
		content = append(content, l[len(m[0]):])
	}
	out.Content, out.NumLines = strings.Join(content, "\n"), len(content)
	return out, true
}

func absPath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// hunk is one hunk of a unified diff, as Claude Code's structuredPatch
// lists them.
type hunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
}

var hunkHead = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// hunks parses a unified diff into its hunks; the file header lines and
// anything before the first hunk are not part of one.
func hunks(diff string) []hunk {
	out := []hunk{}
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		if m := hunkHead.FindStringSubmatch(l); m != nil {
			num := func(s string) int {
				if s == "" {
					return 1 // "@@ -3 +3 @@": one line
				}
				n, _ := strconv.Atoi(s)
				return n
			}
			out = append(out, hunk{OldStart: num(m[1]), OldLines: num(m[2]), NewStart: num(m[3]), NewLines: num(m[4]), Lines: []string{}})
			continue
		}
		if len(out) == 0 {
			continue
		}
		if l != "" && strings.ContainsRune(" +-\\", rune(l[0])) {
			h := &out[len(out)-1]
			h.Lines = append(h.Lines, l)
		}
	}
	return out
}
