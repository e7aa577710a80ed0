package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/tool"
)

type writeInput struct {
	Path    string `json:"path" jsonschema:"The file to write: absolute, or relative to the working directory. Must lie inside the workspace."`
	Content string `json:"content" jsonschema:"The complete new content of the file."`
}

const writeDescription = `Write a file, replacing it entirely if it exists.

- path may be absolute or relative to the working directory; it must lie inside the workspace (the working directory and any roots the host added). Paths that leave it, also through a symlink, are refused.
- Missing parent directories are created.
- To overwrite an existing file you must have read it in this session, and it must not have changed since; otherwise write refuses, so that you never clobber content you have not seen. Read it (again) and retry.
- The write is atomic: the file is replaced in one step, never left half-written, and keeps its permissions.
- An existing file over 32 MiB is not replaced (its old content would be checkpointed whole); use bash for such files.
- To change part of a file, prefer edit: it sends only the change and shows a diff. Use write for new files and complete rewrites.
- Do not create files the task does not need (notes, summaries, READMEs) unless asked.`

// WriteTool returns the write tool.
func WriteTool() tool.Tool { return writeToolOnce() }

// The tool keeps no state of its own (what a session shares lives in its
// tool.Env), so one value, with its schema compiled once, serves every deck.
var writeToolOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "write",
		Label:       "Write file",
		Description: writeDescription,
	}, runWrite, tool.ChangesFiles(changedPath)))
})

func runWrite(ctx context.Context, in writeInput, env *tool.Env) tool.Result {
	t, err := locate(env, in.Path)
	if err != nil {
		return tool.Errorf("cannot write %q: %v", in.Path, err)
	}
	defer t.Close()
	shown := env.Rel(t.abs)
	if err := t.lock(); err != nil {
		return tool.Errorf("%s was not written: %v.", shown, err)
	}
	exists, err := t.exists()
	if err != nil {
		return tool.Errorf("%v.", err)
	}
	var before int64
	if exists {
		if err := t.checkSize(env, MaxEditBytes, "write replaces", "replace"); err != nil {
			return tool.Errorf("%s was not written: %v.", shown, err)
		}
		sum, size, err := t.hashFile()
		if err != nil {
			return tool.Errorf("cannot read %s to check it before overwriting: %v", shown, atomicfile.Bare(err))
		}
		if err := checkRead(env, t, sum, size, "write"); err != nil {
			return tool.Errorf("%s was not written: %v.", shown, err)
		}
		before = size
	}
	if err := ctx.Err(); err != nil {
		return tool.Errorf("write of %s was cancelled before it started: %v", shown, context.Cause(ctx))
	}
	data := []byte(in.Content)
	if err := t.write(data); err != nil {
		return tool.Errorf("%s was not written: %v", shown, err)
	}
	t.remember(env, data)
	if !exists {
		return tool.Textf("Created %s (%s, %s).", shown, plural(len(data), "byte"), plural(countLines(data), "line"))
	}
	return tool.Textf("Updated %s (%s, %s; it had %s).", shown, plural(len(data), "byte"), plural(countLines(data), "line"), plural(int(before), "byte"))
}

// countLines counts lines the way read numbers them: a last line without
// a newline counts.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// changedPath is the ChangedPaths of write and edit: the one file their
// path names. It reads nothing else, so a large content costs a scan, not
// a copy.
func changedPath(args json.RawMessage) ([]string, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("the input is not a JSON object with a string path: %v", err)
	}
	if in.Path == "" {
		return nil, errors.New("the input names no path")
	}
	return []string{in.Path}, nil
}
