package files

import (
	"errors"
	"fmt"
	"strings"
)

// Edit is one replacement of a batch: the exact text to find, the text to
// put in its place, and whether to replace every occurrence.
type Edit struct {
	OldString  string `json:"old_string" jsonschema:"The exact text to replace, copied from the file without read's line-number prefixes. Include enough surrounding lines to make it unique."`
	NewString  string `json:"new_string" jsonschema:"The text to put in its place. Must differ from old_string."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence of old_string instead of requiring exactly one."`
}

// EditError is a step of a batch that could not be applied; the batch is
// then not applied at all.
type EditError struct {
	Index int    // position of the failing edit in the batch
	Msg   string // what was wrong and what to do
}

func (e *EditError) Error() string { return e.Msg }

// applyEdits applies edits in order to content, each to the result of the
// one before, and returns the new content and the number of replacements.
// Any failure leaves nothing applied: the caller writes only a complete
// result.
//
// The model sees files as read shows them, without a byte-order mark and
// with "\n" line ends, so matching forgives exactly that: a leading UTF-8
// BOM is set aside and put back, and old_string is tried as given, then
// with CRLF line ends, then with LF ones. new_string takes the line ends of
// the text it replaces (or the file's prevailing ones), so a CRLF file stays
// CRLF and a mixed file keeps its mix.
func applyEdits(content string, edits []Edit) (string, int, error) {
	body, hadBOM := strings.CutPrefix(content, string(bom))
	crlf := prevailingCRLF(body)
	total := 0
	for i, e := range edits {
		next, n, err := applyOne(body, e, crlf)
		if err != nil {
			return "", 0, &EditError{Index: i, Msg: err.Error()}
		}
		body, total = next, total+n
	}
	if hadBOM {
		body = string(bom) + body
	}
	return body, total, nil
}

func applyOne(text string, e Edit, crlf bool) (string, int, error) {
	old := strings.TrimPrefix(e.OldString, string(bom))
	repl := strings.TrimPrefix(e.NewString, string(bom))
	switch {
	case old == "":
		return "", 0, errors.New("old_string is empty. An empty old_string only creates a file that does not exist yet; to change this file, give the exact text to replace.")
	case old == repl:
		return "", 0, errors.New("old_string and new_string are identical, so there is nothing to change; give the replacement text as new_string.")
	}
	found, n := old, strings.Count(text, old)
	if n == 0 {
		for _, alt := range []string{toCRLF(old), toLF(old)} {
			if alt == old {
				continue
			}
			if c := strings.Count(text, alt); c > 0 {
				found, n = alt, c
				break
			}
		}
	}
	if n == 0 {
		return "", 0, fmt.Errorf("old_string was not found in the file. %s", hint(text, old))
	}
	if n > 1 && !e.ReplaceAll {
		return "", 0, fmt.Errorf("old_string occurs %d times in the file (at lines %s). Include more surrounding lines to pick one, or set replace_all to true to change every occurrence.",
			n, occurrenceLines(text, found, 5))
	}
	switch {
	case strings.Contains(found, "\r\n"), !strings.Contains(found, "\n") && crlf:
		repl = toCRLF(repl)
	default:
		repl = toLF(repl)
	}
	if e.ReplaceAll {
		return strings.ReplaceAll(text, found, repl), n, nil
	}
	return strings.Replace(text, found, repl, 1), 1, nil
}

// prevailingCRLF reports whether most of text's line ends are CRLF.
func prevailingCRLF(text string) bool {
	crlf := strings.Count(text, "\r\n")
	return crlf > 0 && 2*crlf >= strings.Count(text, "\n")
}

// toCRLF gives every line end of s the form "\r\n".
func toCRLF(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(toLF(s), "\n", "\r\n")
}

// toLF gives every "\r\n" line end of s the form "\n".
func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// occurrenceLines lists the line numbers of the first max occurrences of
// sub in text, for an "occurs N times" error.
func occurrenceLines(text, sub string, max int) string {
	var lines []string
	line, from := 1, 0
	for len(lines) < max {
		i := strings.Index(text[from:], sub)
		if i < 0 {
			break
		}
		line += strings.Count(text[from:from+i], "\n")
		lines = append(lines, fmt.Sprint(line))
		line += strings.Count(sub, "\n")
		from += i + len(sub)
	}
	if n := strings.Count(text, sub); n > len(lines) {
		lines = append(lines, "…")
	}
	return strings.Join(lines, ", ")
}
