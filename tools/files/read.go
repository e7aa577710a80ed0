package files

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/tool"
)

type readInput struct {
	Path   string `json:"path" jsonschema:"The file to read: absolute, or relative to the working directory."`
	Offset int    `json:"offset,omitempty" jsonschema:"The 1-based line number to start at. Set it only for files too long to read at once."`
	Limit  int    `json:"limit,omitempty" jsonschema:"How many lines to return at most. Set it only for files too long to read at once."`
}

const readDescription = `Read a file from the local file system.

- path may be absolute or relative to the working directory; ~ and a leading @ are understood. Any readable file works, also outside the workspace.
- By default the first 2000 lines are returned. For a long file, pass offset (the 1-based line to start at) and limit (how many lines) to read just the part you need; when there is more, the result ends with a note giving the offset to continue from.
- Output stops at 50 KB, always between lines. Lines longer than 2000 characters are cut, with a marker.
- Each line comes as its number, right-aligned, then a tab, then the text. The number and the tab are not part of the file: never copy them into edit's old_string.
- PNG, JPEG, GIF and WebP images (up to 5 MB) come back as images you can look at. Other binary files are refused with their size and type.
- Read a file before you edit or overwrite it: write and edit refuse a file this session has not read, or one that changed since it was read.
- Reading an empty file succeeds and says so. To list a directory use ls; to search use grep or find. When several files are relevant, read them in parallel in one turn.`

// ReadTool returns the read tool.
func ReadTool() tool.Tool { return readToolOnce() }

// The tool keeps no state of its own (what a session shares lives in its
// tool.Env), so one value, with its schema compiled once, serves every deck.
var readToolOnce = sync.OnceValue(func() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "read",
		Label:       "Read file",
		Description: readDescription,
		ReadOnly:    true,
	}, runRead, tool.WithSchema(func(s *jsonschema.Schema) {
		tool.SetDefault(s, "offset", 1)
		tool.SetMinimum(s, "offset", 1)
		tool.SetDefault(s, "limit", DefaultReadLines)
		tool.SetMinimum(s, "limit", 1)
	})))
})

func runRead(ctx context.Context, in readInput, env *tool.Env) tool.Result {
	offset, limit := max(in.Offset, 1), in.Limit
	if limit <= 0 {
		limit = DefaultReadLines
	}
	abs, err := env.Resolve(in.Path)
	if err != nil {
		return tool.Errorf("cannot read %q: %v", in.Path, err)
	}
	shown := env.Rel(abs)
	fi, err := os.Stat(abs)
	if err != nil {
		return openFailed(env, abs, err)
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return tool.Errorf("%s is a directory, not a file. List it with ls, or read a file inside it.", shown)
	case !m.IsRegular():
		return tool.Errorf("%s is %s; read opens regular files only, because reading a device, pipe or socket may block or never end.", shown, kindOf(m))
	}
	f, err := openRead(abs)
	if err != nil {
		return openFailed(env, abs, err)
	}
	defer f.Close()

	// A file smaller than the sniffing buffer gets a buffer of its size
	// (and some room in case it grows meanwhile): most files read are.
	head := make([]byte, min(sniffBytes, fi.Size()+512))
	n, err := f.Read(head)
	// ended: the whole file is in head, so it need not be read again. A
	// short read of a regular file is its end; the size check keeps a
	// file system that reads short for other reasons on the safe path.
	ended := err == io.EOF || (err == nil && n < len(head) && int64(n) == fi.Size())
	if err == nil && !ended && n < len(head) {
		var m int
		m, err = io.ReadFull(f, head[n:])
		n += m
		ended = err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)
		if ended {
			err = nil
		}
	}
	if err != nil && !ended {
		return tool.Errorf("cannot read %s: %v", shown, err)
	}
	kind := sniff(head[:n])
	switch {
	case kind.image:
		return readImage(env, f, abs, fi, kind)
	case kind.binary:
		return tool.Errorf("%s is a binary file (%s, %s). read shows text files and PNG, JPEG, GIF and WebP images; inspect other files with bash (for example `file %s` or `xxd %s | head`).",
			shown, kind.name, humanBytes(fi.Size()), shellQuote(abs), shellQuote(abs))
	}
	var text io.Reader = bytes.NewReader(head[:n])
	if !ended {
		text = io.MultiReader(text, f)
	}
	s, err := scanText(ctx, text, offset, limit)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Errorf("read of %s was cancelled: %v", shown, context.Cause(ctx))
		}
		return tool.Errorf("cannot read %s: %v", shown, err)
	}
	if s.total == 0 {
		env.Reads.Record(tool.ReadRecord{Path: canonicalOpen(f, abs, fi), Size: s.size, ModTime: fi.ModTime(), Hash: s.hash})
		return tool.Textf("%s is empty (0 lines, 0 bytes).", shown)
	}
	if offset > s.total {
		return tool.Errorf("offset %d is past the end of %s, which has %s. Use an offset from 1 to %d.", offset, shown, plural(s.total, "line"), s.total)
	}
	env.Reads.Record(tool.ReadRecord{Path: canonicalOpen(f, abs, fi), Size: s.size, ModTime: fi.ModTime(), Hash: s.hash})
	out := strings.TrimSuffix(string(s.out), "\n")
	if s.last < s.total {
		why := ""
		if s.capped {
			why = fmt.Sprintf(" (output stops at %d KB)", MaxReadBytes/1024)
		}
		out += fmt.Sprintf("\n\n[Showing lines %d-%d of %d%s. Use offset=%d to continue.]", s.first, s.last, s.total, why, s.last+1)
	}
	return tool.Text(out)
}

// readImage returns an image file as an image block, if it is small enough.
func readImage(env *tool.Env, f *os.File, abs string, fi fs.FileInfo, kind sniffed) tool.Result {
	shown := env.Rel(abs)
	if fi.Size() > MaxImageBytes {
		return tool.Errorf("%s is a %s of %s, over the %s limit for images. Make a smaller copy first (for example with ImageMagick: convert in.png -resize 50%% out.png) and read that.",
			shown, kind.name, humanBytes(fi.Size()), humanBytes(MaxImageBytes))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return tool.Errorf("cannot read %s: %v", shown, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxImageBytes+1))
	if err != nil {
		return tool.Errorf("cannot read %s: %v", shown, err)
	}
	if len(data) > MaxImageBytes {
		return tool.Errorf("%s grew past the %s limit for images while being read; try again once it stops changing.", shown, humanBytes(MaxImageBytes))
	}
	env.Reads.Record(tool.ReadRecord{Path: canonical(abs), Size: int64(len(data)), ModTime: fi.ModTime(), Hash: sha256.Sum256(data)})
	return tool.Image(data, kind.mime)
}

// openFailed explains why a file could not be opened, suggesting names
// that look like the one asked for when it does not exist.
func openFailed(env *tool.Env, abs string, err error) tool.Result {
	shown := env.Rel(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if link, lerr := os.Readlink(abs); lerr == nil {
			// The name is there, as a symlink whose target is missing:
			// suggesting the very same name would only confuse.
			return tool.Errorf("%s is a symlink to %s, which does not exist. Read the file the link should point to, or fix the link with bash.", shown, link)
		}
		msg := shown + " does not exist."
		if near := similarNames(abs); len(near) > 0 {
			for i := range near {
				near[i] = env.Rel(near[i])
			}
			msg += " Did you mean " + strings.Join(near, " or ") + "?"
		} else if _, derr := os.Stat(filepath.Dir(abs)); derr != nil {
			msg += fmt.Sprintf(" Its directory %s does not exist either.", env.Rel(filepath.Dir(abs)))
		}
		return tool.Errorf("%s Check the path: list the directory with ls or search for the name with find.", msg)
	case errors.Is(err, fs.ErrPermission):
		return tool.Errorf("permission denied: %s cannot be read by this process.", shown)
	}
	return tool.Errorf("cannot open %s: %v", shown, atomicfile.Bare(err))
}

// maxSuggestScan bounds how many directory entries a not-found error looks
// through for similar names, so a huge directory does not slow the error.
const maxSuggestScan = 2000

// similarNames returns up to three paths in abs's directory whose names
// differ from abs's only by case, extension or a typo or two.
func similarNames(abs string) []string {
	dir, base := filepath.Split(abs)
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(maxSuggestScan)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	var out []string
	for _, name := range names {
		if len(out) == 3 {
			break
		}
		switch {
		case strings.EqualFold(name, base),
			stem != "" && strings.TrimSuffix(name, filepath.Ext(name)) == stem,
			len(base) >= 4 && levenshtein(strings.ToLower(name), strings.ToLower(base)) <= 2:
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// levenshtein is the edit distance of two short strings, counted in bytes.
func levenshtein(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return len(a) + len(b)
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// shellQuote quotes a path for a shell command line suggested to the model.
func shellQuote(s string) string {
	if strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
