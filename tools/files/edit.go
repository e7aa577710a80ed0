package files

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/internal/linediff"
	"github.com/indusagi/induscode/tool"
)

type editInput struct {
	Path       string  `json:"path" jsonschema:"The file to edit: absolute, or relative to the working directory. Must lie inside the workspace."`
	OldString  *string `json:"old_string,omitempty" jsonschema:"The exact text to replace, copied from the file without read's line-number prefixes. Include enough surrounding lines to make it unique. Empty to create a new file."`
	NewString  *string `json:"new_string,omitempty" jsonschema:"The text to put in its place. Must differ from old_string."`
	ReplaceAll bool    `json:"replace_all,omitempty" jsonschema:"Replace every occurrence of old_string instead of requiring exactly one (for renaming a variable, say)."`
	Edits      []Edit  `json:"edits,omitempty" jsonschema:"Several replacements in one call, applied in order, each to the result of the one before; all are applied or none. Use instead of old_string/new_string."`
}

const editDescription = `Replace exact text in a file.

- Give old_string (the text to find) and new_string (its replacement). old_string must match the file exactly, whitespace and indentation included, and occur exactly once; add surrounding lines until it is unique, or set replace_all to change every occurrence (handy for renames).
- Copy old_string from read's output without the line-number prefix: everything after the tab that follows the number. Never include the numbers.
- To make several changes to one file, pass edits: [{old_string, new_string, replace_all}, ...]. They apply in order, each to the result of the one before, and the file is written only if every one succeeds.
- You must have read the file in this session, and it must not have changed since; otherwise edit refuses. After a successful edit you may edit again without re-reading.
- CRLF line ends and a UTF-8 byte-order mark are handled for you: write old_string and new_string with plain newlines and the file keeps its own.
- An empty old_string creates a new file with new_string as content, only if the file does not exist yet.
- When old_string is not found, the error shows the closest text and its line; re-read that part and copy it exactly. The result shows the changed lines with their numbers and a unified diff.
- The path must lie inside the workspace; the file is replaced atomically and keeps its permissions.`

// EditTool returns the edit tool.
func EditTool() tool.Tool { return editToolOnce() }

// The tool keeps no state of its own (what a session shares lives in its
// tool.Env), so one value, with its schema compiled once, serves every deck.
var editToolOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "edit",
		Label:       "Edit file",
		Description: editDescription,
	}, runEdit, tool.ChangesFiles(changedPath), tool.WithSchema(func(s *jsonschema.Schema) {
		tool.NotNull(s, "old_string")
		tool.NotNull(s, "new_string")
		tool.SetDefault(s, "replace_all", false)
		tool.NotNull(s, "edits")
		edits := tool.Property(s, "edits")
		edits.MinItems = jsonschema.Ptr(1)
		edits.Items.Required = []string{"old_string", "new_string"}
	})))
})

// editResult is the JSON block of a successful edit.
type editResult struct {
	Path         string `json:"path"`
	Diff         string `json:"diff"`
	Replacements int    `json:"replacements"`
	Created      bool   `json:"created,omitempty"`
}

func runEdit(ctx context.Context, in editInput, env *tool.Env) tool.Result {
	edits, batch, err := editsOf(in)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	t, err := locate(env, in.Path)
	if err != nil {
		return tool.Errorf("cannot edit %q: %v", in.Path, err)
	}
	defer t.Close()
	shown := env.Rel(t.abs)
	if err := t.lock(); err != nil {
		return tool.Errorf("%s was not edited: %v.", shown, err)
	}
	exists, err := t.exists()
	if err != nil {
		return tool.Errorf("%v.", err)
	}

	var before string
	created := false
	switch {
	case !exists && edits[0].OldString == "":
		created = true
		before, edits = edits[0].NewString, edits[1:]
	case !exists:
		res := openFailed(env, t.abs, fs.ErrNotExist)
		res.Blocks[0].Text += " To create a new file use write, or edit with an empty old_string."
		return res
	case edits[0].OldString == "":
		return tool.Errorf("%s already exists; an empty old_string only creates a file that does not exist yet. To change it, give the exact text to replace (read the file first), or replace it whole with write.", shown)
	default:
		if err := t.checkSize(env, MaxEditBytes, "edit rewrites", "change"); err != nil {
			return tool.Errorf("%s was not edited: %v.", shown, err)
		}
		data, err := t.readAll(MaxEditBytes)
		if err != nil {
			return tool.Errorf("%s was not edited: %v.", shown, atomicfile.Bare(err))
		}
		if k := sniff(data[:min(len(data), sniffBytes)]); k.binary {
			return tool.Errorf("%s is a binary file (%s); edit changes text files only.", shown, k.name)
		}
		if err := checkRead(env, t, sha256.Sum256(data), int64(len(data)), "edit"); err != nil {
			return tool.Errorf("%s was not edited: %v.", shown, err)
		}
		// data is this call's own buffer and is never written again, so
		// the string can share it: a copy of a 10 MB file costs as much
		// as reading it.
		before = unsafe.String(unsafe.SliceData(data), len(data))
	}

	after, n := before, 0
	if len(edits) > 0 {
		after, n, err = applyEdits(before, edits)
		if err != nil {
			return editFailed(shown, err, batch, created)
		}
	}
	if err := ctx.Err(); err != nil {
		return tool.Errorf("edit of %s was cancelled before writing: %v", shown, context.Cause(ctx))
	}
	// Both only read the bytes, so they share after's memory (see above).
	out := unsafe.Slice(unsafe.StringData(after), len(after))
	if err := t.write(out); err != nil {
		return tool.Errorf("%s was not edited: %v", shown, err)
	}
	t.remember(env, out)
	return editReport(shown, before, after, n, created)
}

// editsOf turns either input form into a list of edits.
func editsOf(in editInput) (edits []Edit, batch bool, err error) {
	single := in.OldString != nil || in.NewString != nil
	switch {
	case single && len(in.Edits) > 0:
		return nil, false, errors.New("give either old_string and new_string, or edits, not both")
	case len(in.Edits) > 0:
		if in.ReplaceAll {
			return nil, false, errors.New("with edits, set replace_all inside each edit that needs it, not at the top level")
		}
		return in.Edits, true, nil
	case in.OldString == nil:
		return nil, false, errors.New("old_string is missing: give the exact text to replace and new_string, or edits")
	case in.NewString == nil:
		return nil, false, errors.New("new_string is missing: give the text to put in place of old_string (it may be empty to delete)")
	}
	return []Edit{{OldString: *in.OldString, NewString: *in.NewString, ReplaceAll: in.ReplaceAll}}, false, nil
}

func editFailed(shown string, err error, batch, created bool) tool.Result {
	var ee *EditError
	if !errors.As(err, &ee) {
		return tool.Errorf("%s was not edited: %v", shown, err)
	}
	if !batch {
		return tool.Errorf("%s was not edited: %s", shown, ee.Msg)
	}
	index := ee.Index
	if created {
		index++ // edits[0] was the creation
	}
	return tool.Errorf("%s was not edited: edits[%d] failed: %s\nNo edit of the batch was applied; the file is unchanged. Fix that edit and send the whole batch again.", shown, index, ee.Msg)
}

// editReport shows the changed region with line numbers and attaches the
// unified diff as a JSON block.
func editReport(shown, before, after string, n int, created bool) tool.Result {
	// Lines as read shows them: no byte-order mark (nor, in unified, "\r").
	a := linediff.Lines(strings.TrimPrefix(before, string(bom)))
	b := linediff.Lines(strings.TrimPrefix(after, string(bom)))
	oldName, newName := "a/"+filepath.ToSlash(shown), "b/"+filepath.ToSlash(shown)
	if filepath.IsAbs(shown) {
		oldName, newName = shown, shown
	}
	var head string
	if created {
		a, oldName = nil, "/dev/null"
		head = fmt.Sprintf("Created %s (%s, %s).", shown, plural(len(after), "byte"), plural(len(b), "line"))
		if n > 0 {
			head = fmt.Sprintf("Created %s (%s, %s; %s after creating it).", shown, plural(len(after), "byte"), plural(len(b), "line"), plural(n, "replacement"))
		}
	} else {
		head = fmt.Sprintf("Edited %s: %s.", shown, plural(n, "replacement"))
	}
	cs := linediff.Diff(a, b)
	var sb strings.Builder
	sb.WriteString(head)
	if len(cs) == 0 {
		sb.WriteString(" The content is unchanged.")
	} else {
		sb.WriteString(" The changed region now reads:\n")
		sb.WriteString(snippet(len(a), b, cs))
	}
	res := tool.Text(strings.TrimRight(sb.String(), "\n"))
	res.Blocks = append(res.Blocks, tool.JSONBlock(editResult{
		Path:         filepath.ToSlash(shown),
		Diff:         unified(oldName, newName, a, b, cs),
		Replacements: n,
		Created:      created,
	}))
	return res
}

// snippet renders each changed region of the new text with SnippetContext
// lines around it, numbered as read numbers them, at most MaxSnippetLines.
func snippet(na int, b []string, cs []linediff.Change) string {
	var sb strings.Builder
	shown := 0
	for i, h := range linediff.Group(na, cs, SnippetContext) {
		if i > 0 {
			sb.WriteString("   ...\n")
		}
		for k := h.B0; k < h.B1; k++ {
			if shown == MaxSnippetLines {
				fmt.Fprintf(&sb, "[… more changed lines not shown; read the file from line %d to see them]\n", k+1)
				return sb.String()
			}
			line := strings.TrimSuffix(strings.TrimSuffix(b[k], "\n"), "\r")
			sb.Write(appendLine(nil, k+1, []byte(line), len(line)))
			shown++
		}
	}
	return sb.String()
}
