package transcript_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/transcript"
)

func TestAppendResumeAndList(t *testing.T) {
	dir := t.TempDir()
	tr, err := transcript.New(dir, "anthropic/claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	q, a := provider.UserText("fix the build"), provider.Message{Role: provider.Assistant, Blocks: []provider.Block{{Kind: provider.TextBlock, Text: "fixed"}}}
	if err := tr.Append(transcript.Line{Kind: transcript.MessageLine, Message: &q}, transcript.Line{Kind: transcript.MessageLine, Message: &a}); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	// A crash in the middle of the next write leaves a cut line.
	f, _ := os.OpenFile(filepath.Join(dir, ".indusvx", "transcripts", tr.ID()+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"message","message":{"role":"us`)
	f.Close()

	again, lines, err := transcript.Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.ID() != tr.ID() {
		t.Errorf("latest is %s, want %s", again.ID(), tr.ID())
	}
	msgs := transcript.Messages(lines)
	if len(msgs) != 2 || msgs[1].Text() != "fixed" {
		t.Fatalf("resumed %+v", msgs)
	}
	infos, err := transcript.List(dir)
	if err != nil || len(infos) != 1 || infos[0].Messages != 2 || infos[0].First != "fix the build" || infos[0].Model != "anthropic/claude-sonnet-4-5" {
		t.Fatalf("list %+v %v", infos, err)
	}
	if _, _, err := transcript.Open(dir, "../../etc/passwd"); err == nil || !strings.Contains(err.Error(), "not a transcript id") {
		t.Errorf("a path as an id: %v", err)
	}
}

func TestSummaryRestartsTheConversation(t *testing.T) {
	q := provider.UserText("old")
	lines := []transcript.Line{{Kind: transcript.MessageLine, Message: &q}, {Kind: transcript.Summary, Text: "so far: x"}, {Kind: transcript.MessageLine, Message: &q}}
	msgs := transcript.Messages(lines)
	if len(msgs) != 2 || msgs[0].Text() != "so far: x" {
		t.Fatalf("%+v", msgs)
	}
}

// A repository cannot redirect a transcript write with a symlink: not by
// linking the transcripts folder out of the workspace, and not by
// planting a link where a transcript file will be appended.
func TestSymlinksDoNotRedirectWrites(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".indusvx"), 0o755)
	if err := os.Symlink(outside, filepath.Join(dir, ".indusvx", "transcripts")); err != nil {
		t.Fatal(err)
	}
	q := provider.UserText("x")
	if tr, err := transcript.New(dir, "m"); err == nil {
		if err := tr.Append(transcript.Line{Kind: transcript.MessageLine, Message: &q}); err == nil {
			t.Error("a transcript was written through a linked folder")
		}
		tr.Close()
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files appeared outside the workspace: %v", entries)
	}

	dir2 := t.TempDir()
	tr, err := transcript.New(dir2, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	target := filepath.Join(outside, "victim")
	os.WriteFile(target, []byte("keep\n"), 0o644)
	file := filepath.Join(dir2, ".indusvx", "transcripts", tr.ID()+".jsonl")
	os.Remove(file)
	os.Symlink(target, file)
	if err := tr.Append(transcript.Line{Kind: transcript.MessageLine, Message: &q}); err == nil {
		t.Error("an append followed a planted link")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target was changed: %q", b)
	}
}
