package files

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/tool"
)

// The specs are what the catalog and the model see: names, labels, the
// read-only flag the profiles depend on, and object schemas.
func TestSpecs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tl       tool.Tool
		name     string
		label    string
		readOnly bool
	}{
		{ReadTool(), "read", "Read file", true},
		{LsTool(), "ls", "List directory", true},
		{WriteTool(), "write", "Write file", false},
		{EditTool(), "edit", "Edit file", false},
	} {
		s := c.tl.Spec()
		if s.Name != c.name || s.Label != c.label || s.ReadOnly != c.readOnly || !tool.ValidName(s.Name) {
			t.Errorf("%s: spec %q %q readOnly=%v", c.name, s.Name, s.Label, s.ReadOnly)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema.Type != "object" || len(schema.Properties) == 0 {
			t.Errorf("%s: schema %s (%v)", c.name, s.InputSchema, err)
		}
		if len(s.Description) < 200 {
			t.Errorf("%s: description too thin for a model: %q", c.name, s.Description)
		}
	}
}

// The gate's refusals are distinguishable with errors.Is.
func TestGateErrors(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	p := filepath.Join(dir, "f")
	writeFile(t, p, "v1")
	tg, err := locate(env, "f")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sum := sha256.Sum256([]byte("v1"))
	if err := checkRead(env, tg, sum, 2, "edit"); !errors.Is(err, errNotRead) {
		t.Errorf("unread file: %v", err)
	}
	env.Reads.Record(tool.ReadRecord{Path: p, Size: 2, Hash: sum})
	if err := checkRead(env, tg, sum, 2, "edit"); err != nil {
		t.Errorf("fresh read: %v", err)
	}
	if err := checkRead(env, tg, sha256.Sum256([]byte("v2")), 2, "edit"); !errors.Is(err, errChanged) || errors.Is(err, errNotRead) {
		t.Errorf("changed file: %v", err)
	}
}

// A cancelled call stops reading and says so.
func TestReadCancelled(t *testing.T) {
	t.Parallel()
	env, dir := newEnv(t)
	writeFile(t, filepath.Join(dir, "f"), strings.Repeat("some text\n", 3*readBufferSize/10))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := ReadTool().Run(ctx, []byte(`{"path":"f"}`), env)
	mustFail(t, r, "read of f was cancelled")
}

func TestClosest(t *testing.T) {
	t.Parallel()
	text := "alpha\n\tbeta(1)\n\tgamma\ndelta\n"
	tests := []struct {
		old       string
		line      int
		spaceOnly bool
		ok        bool
	}{
		{"beta(1)\n    gamma", 2, true, true},     // tail of a line, then a reindented one
		{"  beta( 1 )", 2, true, true},            // one line, spaces differ
		{"\tbeta(2)\n\tgamma", 2, false, true},    // a typo
		{"gamma\ndelta\nepsilon", 3, false, true}, // runs past the end
		{"completely unrelated words", 0, false, false},
		{"\n\n", 0, false, false}, // only blank lines: nothing to go on
	}
	for _, tc := range tests {
		m, ok := closest(text, tc.old)
		if ok != tc.ok || (ok && (m.line != tc.line || m.spaceOnly != tc.spaceOnly)) {
			t.Errorf("closest(%q) = line %d spaceOnly=%v ok=%v; want %d %v %v", tc.old, m.line, m.spaceOnly, ok, tc.line, tc.spaceOnly, tc.ok)
		}
	}
}

// The near-match search stays fast on a large file (the budget works).
func TestClosestLargeFile(t *testing.T) {
	t.Parallel()
	text := numberedLines(100_000)
	start := time.Now()
	m, ok := closest(text, "line 75000\nline 75001\nline 7502\nline 75003\n")
	if !ok || m.line != 75_000 {
		t.Errorf("closest = line %d, %v; want 75000", m.line, ok)
	}
	t.Logf("near-match search over %d lines took %v", 100_000, time.Since(start))
}

func TestSniff(t *testing.T) {
	t.Parallel()
	for head, want := range map[string]string{
		"plain text\n":              "text",
		"MZ is a fine way to start": "text", // short magic without NUL bytes
		"MZ\x90\x00\x03\x00":        "Windows executable",
		"%PDF-1.7\n":                "PDF document",
		"PK\x03\x04\x14\x00":        "ZIP archive (or a jar, docx, xlsx)",
		"\x1f\x8b\x08\x00":          "gzip archive",
		"SQLite format 3\x00":       "SQLite database",
		"\xff\xfeh\x00":             "UTF-16 text (convert it to UTF-8 to read it here, e.g. with iconv)",
		"":                          "text",
	} {
		if got := sniff([]byte(head)).name; got != want {
			t.Errorf("sniff(%q) = %q, want %q", head, got, want)
		}
	}
}

// Devices, pipes and sockets are refused before they are opened.
func TestReadDevice(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null here")
	}
	env, _ := newEnv(t)
	mustFail(t, call(t, ReadTool(), env, map[string]any{"path": "/dev/null"}), "/dev/null is a character device", "regular files only")
}
