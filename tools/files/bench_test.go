package files

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// benchSource is a Go-like file of n lines.
func benchSource(n int) string {
	var sb strings.Builder
	for i := range n {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&sb, "func handler%d(ctx context.Context, req *Request) (*Response, error) {\n", i)
		case 1:
			fmt.Fprintf(&sb, "\tif err := validate(req, %d); err != nil {\n", i)
		case 2:
			sb.WriteString("\t\treturn nil, fmt.Errorf(\"validate: %w\", err)\n")
		case 3:
			sb.WriteString("\t}\n")
		default:
			fmt.Fprintf(&sb, "\treturn &Response{ID: %d}, nil\n}\n", i)
		}
	}
	return sb.String()
}

// BenchmarkRead reads 2000 lines from the middle of a 64 MiB text file:
// one streaming pass that hashes and counts the whole file.
func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	line := strings.Repeat("abcdefghij", 6) + "...\n" // 64 bytes
	content := strings.Repeat(line, (64<<20)/len(line))
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	env := tool.NewEnv(dir)
	rt := ReadTool()
	in := json.RawMessage(`{"path":"big.txt","offset":500000,"limit":2000}`)
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if r := rt.Run(context.Background(), in, env); r.IsError {
			b.Fatal(r.PlainText())
		}
	}
}

// BenchmarkEdit is one whole edit of a 10,000-line source file: locate,
// read and hash, the read-before-edit gate, the replacement, the atomic
// write with fsync, and the report with its diff.
func BenchmarkEdit(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "big.go")
	content := benchSource(10_000)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	env := tool.NewEnv(dir)
	if r := ReadTool().Run(context.Background(), json.RawMessage(`{"path":"big.go"}`), env); r.IsError {
		b.Fatal(r.PlainText())
	}
	et := EditTool()
	ins := []json.RawMessage{
		json.RawMessage(`{"path":"big.go","old_string":"validate(req, 5001)","new_string":"check(req, 5001)"}`),
		json.RawMessage(`{"path":"big.go","old_string":"check(req, 5001)","new_string":"validate(req, 5001)"}`),
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if r := et.Run(context.Background(), ins[i%2], env); r.IsError {
			b.Fatal(r.PlainText())
		}
		i++
	}
}

// BenchmarkEditReplaceAll is the engine and diff alone (no disk) for a
// replace_all touching 2,000 lines of the same file.
func BenchmarkEditReplaceAll(b *testing.B) {
	content := benchSource(10_000)
	edits := []Edit{{OldString: "return nil, fmt.Errorf", NewString: "return nil, errors.Errorf", ReplaceAll: true}}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		after, n, err := applyEdits(content, edits)
		if err != nil || n != 2000 {
			b.Fatal(n, err)
		}
		editReport("big.go", content, after, n, false)
	}
}
