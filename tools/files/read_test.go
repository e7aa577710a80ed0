package files

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// pngHeader is the start of a real 1x1 PNG: signature and IHDR chunk.
const pngHeader = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"

func TestRead(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 5000)
	wide := strings.Repeat("é", 2500) // 2 bytes a character
	tests := []struct {
		name    string
		content string           // file "f" holds this unless setup says otherwise
		setup   func(dir string) // replaces content
		noFile  bool             // create no file at all
		in      map[string]any
		want    []string // substrings of the text (or of the error)
		exact   string   // when set, the whole text
		wantErr bool
		check   func(t *testing.T, r tool.Result)
	}{
		{name: "numbered lines", content: "alpha\nbeta\n", in: map[string]any{"path": "f"},
			exact: "     1\talpha\n     2\tbeta"},
		{name: "last line without newline counts", content: "a\nb", in: map[string]any{"path": "f", "limit": 1},
			exact: "     1\ta\n\n[Showing lines 1-1 of 2. Use offset=2 to continue.]"},
		{name: "offset and limit", content: numberedLines(10), in: map[string]any{"path": "f", "offset": 3, "limit": 2},
			exact: "     3\tline 3\n     4\tline 4\n\n[Showing lines 3-4 of 10. Use offset=5 to continue.]"},
		{name: "window reaching the end has no notice", content: numberedLines(10), in: map[string]any{"path": "f", "offset": 9},
			exact: "     9\tline 9\n    10\tline 10"},
		{name: "default limit is 2000 lines", content: numberedLines(2500), in: map[string]any{"path": "f"},
			want: []string{"  2000\tline 2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"}},
		{name: "offset past the end gives the line count", content: numberedLines(10), in: map[string]any{"path": "f", "offset": 11},
			wantErr: true, want: []string{"offset 11 is past the end", "has 10 lines", "from 1 to 10"}},
		{name: "offset past a one-line file says line, not lines", content: "only\n", in: map[string]any{"path": "f", "offset": 2},
			wantErr: true, want: []string{"which has 1 line.", "from 1 to 1"}},
		{name: "empty file says so", content: "", in: map[string]any{"path": "f"},
			exact: "f is empty (0 lines, 0 bytes)."},
		{name: "CRLF line ends are not shown", content: "one\r\ntwo\r\n", in: map[string]any{"path": "f"},
			exact: "     1\tone\n     2\ttwo"},
		{name: "BOM is not shown", content: "\ufefffirst\nsecond\n", in: map[string]any{"path": "f"},
			exact: "     1\tfirst\n     2\tsecond"},
		{name: "long line is cut with a marker", content: long + "\nshort\n", in: map[string]any{"path": "f"},
			exact: "     1\t" + long[:MaxLineChars] + " [… line cut at 2000 characters; it is 5000 bytes long]\n     2\tshort"},
		{name: "cut counts characters not bytes", content: wide + "\n", in: map[string]any{"path": "f"},
			exact: "     1\t" + strings.Repeat("é", MaxLineChars) + " [… line cut at 2000 characters; it is 5000 bytes long]"},
		{name: "line of exactly the limit is whole", content: long[:MaxLineChars] + "\r\n", in: map[string]any{"path": "f"},
			exact: "     1\t" + long[:MaxLineChars]},
		{name: "mention prefix is stripped", content: "x\n", in: map[string]any{"path": "@f"},
			exact: "     1\tx"},
		{name: "directory is refused", setup: func(dir string) { os.Mkdir(filepath.Join(dir, "f"), 0o755) },
			in: map[string]any{"path": "f"}, wantErr: true, want: []string{"f is a directory", "ls"}},
		{name: "missing file suggests a near name", setup: func(dir string) { writeFile(t, filepath.Join(dir, "main.go"), "x") },
			in: map[string]any{"path": "mian.go"}, wantErr: true, want: []string{"mian.go does not exist", "Did you mean main.go?"}},
		{name: "dangling symlink is named as one", noFile: true, setup: func(dir string) { os.Symlink("gone.txt", filepath.Join(dir, "link")) },
			in: map[string]any{"path": "link"}, wantErr: true, want: []string{"link is a symlink to gone.txt, which does not exist"}},
		{name: "missing directory is named", noFile: true, in: map[string]any{"path": "nope/f"},
			wantErr: true, want: []string{"nope/f does not exist", "Its directory nope does not exist either"}},
		{name: "binary file names type and size", content: "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00", 2040),
			in: map[string]any{"path": "f"}, wantErr: true, want: []string{"binary file (ELF executable, 2.0 KB)", "xxd"}},
		{name: "NUL bytes make a file binary", content: "text\x00more text",
			in: map[string]any{"path": "f"}, wantErr: true, want: []string{"binary file (binary data, 14 B)"}},
		{name: "UTF-16 text suggests converting", content: "\xff\xfeh\x00i\x00",
			in: map[string]any{"path": "f"}, wantErr: true, want: []string{"UTF-16", "iconv"}},
		{name: "unsupported image type is refused", content: "BM" + strings.Repeat("\x00", 60),
			in: map[string]any{"path": "f"}, wantErr: true, want: []string{"BMP image"}},
		{name: "png comes back as an image", content: pngHeader, in: map[string]any{"path": "f"},
			check: func(t *testing.T, r tool.Result) {
				if len(r.Blocks) != 1 || r.Blocks[0].Kind != tool.KindImage || r.Blocks[0].MIME != "image/png" || string(r.Blocks[0].Data) != pngHeader {
					t.Errorf("want one image/png block with the file's bytes, got %+v", r.Blocks)
				}
			}},
		{name: "image over 5 MB is refused", content: pngHeader + strings.Repeat("\x00", MaxImageBytes),
			in: map[string]any{"path": "f"}, wantErr: true, want: []string{"PNG image of 5.0 MB", "over the 5.0 MB limit"}},
		{name: "offset below 1 is invalid input", content: "x\n", in: map[string]any{"path": "f", "offset": 0},
			wantErr: true, want: []string{"field offset"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, dir := newEnv(t)
			if tc.setup != nil {
				tc.setup(dir)
			} else if !tc.noFile {
				writeFile(t, filepath.Join(dir, "f"), tc.content)
			}
			r := call(t, ReadTool(), env, tc.in)
			if r.IsError != tc.wantErr {
				t.Fatalf("IsError = %v, want %v: %s", r.IsError, tc.wantErr, short(text(r)))
			}
			got := text(r)
			if tc.exact != "" && got != tc.exact {
				t.Errorf("text:\n%q\nwant:\n%q", short(got), short(tc.exact))
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("text %q does not contain %q", short(got), w)
				}
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func TestReadImages(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ data, mime string }{
		"a.jpg":  {"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"},
		"a.gif":  {"GIF89a\x01\x00\x01\x00", "image/gif"},
		"b.gif":  {"GIF87a\x01\x00\x01\x00", "image/gif"},
		"a.webp": {"RIFF\x24\x00\x00\x00WEBPVP8 ", "image/webp"},
		// The extension does not matter: the bytes do.
		"pic.txt": {pngHeader, "image/png"},
	} {
		env, dir := newEnv(t)
		writeFile(t, filepath.Join(dir, name), c.data)
		r := call(t, ReadTool(), env, map[string]any{"path": name})
		if r.IsError || len(r.Blocks) != 1 || r.Blocks[0].Kind != tool.KindImage || r.Blocks[0].MIME != c.mime {
			t.Errorf("%s: want an %s image block, got %+v", name, c.mime, r)
		}
	}
	// RIFF that is not WebP (a WAV file) is not an image.
	env, dir := newEnv(t)
	writeFile(t, filepath.Join(dir, "a.wav"), "RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00")
	mustFail(t, call(t, ReadTool(), env, map[string]any{"path": "a.wav"}), "binary file")
}

// The output stops before 50 KB, between lines, and says how to go on.
func TestReadByteCap(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	var sb strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&sb, "%04d %s\n", i, strings.Repeat("y", 95))
	}
	writeFile(t, filepath.Join(dir, "big.txt"), sb.String())
	got := mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "big.txt"}))
	body, notice, ok := strings.Cut(got, "\n\n[")
	if !ok {
		t.Fatalf("no continuation notice in %q", got[len(got)-200:])
	}
	if len(body) > MaxReadBytes {
		t.Errorf("output is %d bytes, over %d", len(body), MaxReadBytes)
	}
	lines := strings.Split(body, "\n")
	last := lines[len(lines)-1]
	if len(last) != len("   123\t0123 ")+95 {
		t.Errorf("last line is not whole: %q", last)
	}
	n := len(lines)
	want := fmt.Sprintf("Showing lines 1-%d of 1000 (output stops at 50 KB). Use offset=%d to continue.]", n, n+1)
	if notice != want {
		t.Errorf("notice %q, want %q", notice, want)
	}
	// Continuing from there picks up the next line.
	next := mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "big.txt", "offset": n + 1, "limit": 1}))
	if !strings.HasPrefix(next, fmt.Sprintf("%6d\t%04d ", n+1, n+1)) {
		t.Errorf("continuation starts %q", next[:20])
	}
}

// A read records the whole file's hash, even when it shows only a part.
func TestReadRecordsState(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	content := numberedLines(100)
	writeFile(t, filepath.Join(dir, "f"), content)
	mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "f", "offset": 10, "limit": 2}))
	rec, ok := env.Reads.Lookup(filepath.Join(dir, "f"))
	if !ok {
		t.Fatal("read did not record the file")
	}
	if rec.Hash != sha256.Sum256([]byte(content)) || rec.Size != int64(len(content)) {
		t.Errorf("record %+v does not describe the whole file", rec)
	}
	// A failed read records nothing.
	writeFile(t, filepath.Join(dir, "g"), "x\n")
	mustFail(t, call(t, ReadTool(), env, map[string]any{"path": "g", "offset": 5}))
	if _, ok := env.Reads.Lookup(filepath.Join(dir, "g")); ok {
		t.Error("a failed read was recorded")
	}
}

// A line far longer than the stream buffer is cut without being held.
func TestReadHugeLine(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	line := bytes.Repeat([]byte("z"), 3*readBufferSize+17)
	writeFile(t, filepath.Join(dir, "f"), string(line)+"\r\nnext")
	got := mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "f"}))
	want := fmt.Sprintf("     1\t%s [… line cut at 2000 characters; it is %d bytes long]\n     2\tnext", line[:MaxLineChars], len(line))
	if got != want {
		t.Errorf("got %q…, want %q…", got[:40], want[:40])
	}
}

// Files whose size sits around the sniffing buffer are read whole, and
// the hash read records is the file's: an edit right after succeeds.
func TestReadAroundTheSniffBuffer(t *testing.T) {
	t.Parallel()
	for _, size := range []int{1, sniffBytes - 1, sniffBytes, sniffBytes + 1, 3*sniffBytes + 7} {
		env, dir := newEnv(t)
		line := "0123456789abcdef\n"
		content := strings.Repeat(line, size/len(line)+1)[:size-1] + "Z"
		p := filepath.Join(dir, "f.txt")
		writeFile(t, p, content)
		out := mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "f.txt", "limit": 100000}))
		if !strings.HasSuffix(strings.TrimSpace(out), "Z") {
			t.Errorf("size %d: the last byte is missing: ...%q", size, out[max(0, len(out)-40):])
		}
		mustOK(t, call(t, EditTool(), env, map[string]any{"path": "f.txt", "old_string": "Z", "new_string": "Y"}))
		if got := readFile(t, p); got != content[:size-1]+"Y" {
			t.Errorf("size %d: edit left %d bytes", size, len(got))
		}
	}
}

// A read through a directory symlink records the file the link leads to
// now: after the link is pointed elsewhere, a second read records the new
// target (the remembered canonical path is for the old file only), and
// only files read may be edited.
func TestReadFollowsARetargetedLink(t *testing.T) {
	env, dir := newEnv(t)
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, d, "f.txt"), []byte("in "+d+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("a", link); err != nil {
		t.Fatal(err)
	}
	if out := mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "link/f.txt"})); !strings.Contains(out, "in a") {
		t.Fatalf("first read: %q", out)
	}
	if r := call(t, EditTool(), env, map[string]any{"path": "b/f.txt", "old_string": "in b", "new_string": "edited"}); !r.IsError {
		t.Fatal("b/f.txt was edited without being read")
	}
	os.Remove(link)
	if err := os.Symlink("b", link); err != nil {
		t.Fatal(err)
	}
	if out := mustOK(t, call(t, ReadTool(), env, map[string]any{"path": "link/f.txt"})); !strings.Contains(out, "in b") {
		t.Fatalf("read after the link moved: %q", out)
	}
	mustOK(t, call(t, EditTool(), env, map[string]any{"path": "b/f.txt", "old_string": "in b", "new_string": "edited"}))
}
