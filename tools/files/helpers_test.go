package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// newEnv returns a session rooted at a fresh temporary directory.
func newEnv(t *testing.T) (*tool.Env, string) {
	t.Helper()
	dir := t.TempDir()
	return tool.NewEnv(dir), dir
}

// call runs tl with in encoded as JSON.
func call(t *testing.T, tl tool.Tool, env *tool.Env, in any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return tl.Run(context.Background(), raw, env)
}

// text is the result's text blocks joined.
func text(r tool.Result) string {
	var parts []string
	for _, b := range r.Blocks {
		if b.Kind == tool.KindText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// mustOK fails the test unless r succeeded, and returns its text.
func mustOK(t *testing.T, r tool.Result) string {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error result: %s", short(text(r)))
	}
	return text(r)
}

// mustFail fails the test unless r failed with every want in its text.
func mustFail(t *testing.T, r tool.Result, want ...string) string {
	t.Helper()
	if !r.IsError {
		t.Fatalf("expected an error result, got: %s", short(text(r)))
	}
	msg := text(r)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", short(msg), w)
		}
	}
	return msg
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// numberedLines builds "line 1\nline 2\n..." with n lines.
func numberedLines(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		sb.WriteString("line ")
		sb.WriteString(strconv.Itoa(i))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// short keeps failure messages readable: the head and tail of long text.
func short(s string) string {
	if len(s) <= 600 {
		return s
	}
	return s[:300] + " … " + s[len(s)-300:]
}
