package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/transcript"
)

func TestMain(m *testing.M) {
	// Every test signs with a key of the package's own, never the user's.
	xdg, err := os.MkdirTemp("", "transcript-xdg-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", xdg)
	code := m.Run()
	os.RemoveAll(xdg)
	os.Exit(code)
}

func say(t *testing.T, tr *transcript.Transcript, texts ...string) {
	t.Helper()
	var lines []transcript.Line
	for _, s := range texts {
		m := provider.UserText(s)
		lines = append(lines, transcript.Line{Kind: transcript.MessageLine, Message: &m})
	}
	if err := tr.Append(lines...); err != nil {
		t.Fatal(err)
	}
}

func pathOf(dir, id string) string {
	return filepath.Join(dir, ".indusvx", "transcripts", id+".jsonl")
}

func texts(lines []transcript.Line) string {
	var out []string
	for _, m := range transcript.Messages(lines) {
		out = append(out, m.Text())
	}
	return strings.Join(out, ",")
}

// A crash in the middle of an append leaves a torn last line; the next
// appends go on a line of their own and the conversation stays whole and
// the latest (before, the next append was glued to the torn bytes and
// lost, and the one after made the file unreadable, so --continue took
// an older conversation).
func TestTornLineIsCutOffBeforeTheNextAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	older, _ := transcript.New(dir, "m")
	say(t, older, "older")
	tr, err := transcript.New(dir, "m")
	if err != nil {
		t.Fatal(err)
	}
	say(t, tr, "one")
	f, _ := os.OpenFile(pathOf(dir, tr.ID()), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"message","message":{"role":"us`)
	f.Close()

	again, lines, err := transcript.Latest(dir)
	if err != nil || again.ID() != tr.ID() || texts(lines) != "one" {
		t.Fatalf("latest %v %q %v", again, texts(lines), err)
	}
	say(t, again, "two")
	say(t, again, "three")
	again, lines, err = transcript.Latest(dir)
	if err != nil || again.ID() != tr.ID() || texts(lines) != "one,two,three" {
		t.Fatalf("after two appends: latest %v %q %v", again, texts(lines), err)
	}
	infos, err := transcript.List(dir)
	if err != nil || len(infos) != 2 || infos[0].ID != tr.ID() || infos[0].Messages != 3 || infos[0].Damaged != "" {
		t.Fatalf("list %+v %v", infos, err)
	}
}

// The latest conversation is the one whose signed last line is newest;
// a file's modification time does not count.
func TestLatestIsByRecordedTimeNotMtime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, _ := transcript.New(dir, "m")
	say(t, a, "a")
	b, _ := transcript.New(dir, "m")
	say(t, b, "b")
	future := time.Now().Add(48 * time.Hour)
	os.Chtimes(pathOf(dir, a.ID()), future, future)
	got, _, err := transcript.Latest(dir)
	if err != nil || got.ID() != b.ID() {
		t.Fatalf("latest %v %v, want %s", got, err, b.ID())
	}
	say(t, a, "a again")
	if got, _, err := transcript.Latest(dir); err != nil || got.ID() != a.ID() {
		t.Fatalf("after a's append, latest %v %v, want %s", got, err, a.ID())
	}
}

// A transcript planted in the workspace (committed to the repository)
// with a time in the future is not history: --continue passes over it,
// the listing names it, and a forged signature marks it damaged.
func TestPlantedTranscriptIsNotHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mine, _ := transcript.New(dir, "m")
	say(t, mine, "mine")

	planted := "01J00000000000000000000000"
	future := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339Nano)
	body := `{"kind":"header","time":"` + future + `","id":"` + planted + `","model":"m"}` + "\n" +
		`{"kind":"message","time":"` + future + `","message":{"role":"user","content":[{"type":"text","text":"forged"}]}}` + "\n"
	os.WriteFile(pathOf(dir, planted), []byte(body), 0o600)
	forged := "01J00000000000000000000001"
	fbody := strings.ReplaceAll(body, planted, forged)
	fbody = strings.ReplaceAll(fbody, "}\n", `,"mac":"`+strings.Repeat("ab", 32)+`"}`+"\n")
	os.WriteFile(pathOf(dir, forged), []byte(fbody), 0o600)
	for _, p := range []string{planted, forged} {
		os.Chtimes(pathOf(dir, p), time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	}

	got, lines, err := transcript.Latest(dir)
	if err != nil || got.ID() != mine.ID() || texts(lines) != "mine" {
		t.Fatalf("latest %v %q %v, want mine", got, texts(lines), err)
	}
	infos, err := transcript.List(dir)
	if err != nil || len(infos) != 3 {
		t.Fatalf("list %+v %v", infos, err)
	}
	if infos[0].ID != mine.ID() || !infos[1].Unsigned || infos[1].ID != planted || infos[2].ID != forged || !strings.Contains(infos[2].Damaged, "not signed by your indusr") {
		t.Errorf("list %+v", infos)
	}
	if _, _, err := transcript.Open(dir, forged); err == nil || !strings.Contains(err.Error(), "not signed by your indusr") {
		t.Errorf("a forged signature was resumed: %v", err)
	}
}

// A line of one conversation copied into another does not verify there,
// and a changed line anywhere makes the conversation damaged: when it is
// the latest, --continue says so instead of resuming an older one.
func TestChangedOrMovedLinesAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, _ := transcript.New(dir, "m")
	say(t, a, "a1", "a2")
	b, _ := transcript.New(dir, "m")
	say(t, b, "b1")
	say(t, b, "b2")
	say(t, b, "b3")

	ab, _ := os.ReadFile(pathOf(dir, a.ID()))
	alines := strings.SplitAfter(string(ab), "\n")
	bb, _ := os.ReadFile(pathOf(dir, b.ID()))
	blines := strings.SplitAfter(string(bb), "\n")
	moved := blines[0] + alines[1] + strings.Join(blines[2:], "")
	os.WriteFile(pathOf(dir, b.ID()), []byte(moved), 0o600)
	if _, _, err := transcript.Open(dir, b.ID()); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a line moved from another conversation: %v", err)
	}
	changed := blines[0] + strings.Replace(blines[1], "b1", "rm", 1) + strings.Join(blines[2:], "")
	os.WriteFile(pathOf(dir, b.ID()), []byte(changed), 0o600)
	if _, _, err := transcript.Latest(dir); err == nil || !strings.Contains(err.Error(), b.ID()) {
		t.Errorf("the latest conversation is damaged, yet --continue gave %v", err)
	}
	infos, _ := transcript.List(dir)
	if len(infos) != 2 || infos[1].ID != b.ID() || infos[1].Damaged == "" {
		t.Errorf("the damaged conversation is not named: %+v", infos)
	}
}

// A conversation written before lines were signed is resumed when the
// user names it (and then signed); --continue does not take it.
func TestUnsignedConversationIsSignedWhenNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, _ := transcript.New(dir, "m")
	say(t, tr, "old", "times")
	b, _ := os.ReadFile(pathOf(dir, tr.ID()))
	var plain []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if i := bytes.LastIndex(l, []byte(`,"mac":"`)); i > 0 {
			l = append(l[:i:i], "}\n"...)
		}
		plain = append(plain, l...)
	}
	os.WriteFile(pathOf(dir, tr.ID()), plain, 0o600)
	if _, _, err := transcript.Latest(dir); err == nil || !strings.Contains(err.Error(), "not signed") {
		t.Fatalf("--continue took an unsigned conversation: %v", err)
	}
	got, lines, err := transcript.Open(dir, tr.ID())
	if err != nil || texts(lines) != "old,times" {
		t.Fatalf("resume by id: %q %v", texts(lines), err)
	}
	say(t, got, "new")
	if got, lines, err := transcript.Latest(dir); err != nil || got.ID() != tr.ID() || texts(lines) != "old,times,new" {
		t.Fatalf("after signing, latest %v %q %v", got, texts(lines), err)
	}
}

// The key that signs lines is a file of the user's, refused when it is a
// link (to a key someone else knows).
func TestKeyFileMustBeTheUsers(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "k"), []byte(strings.Repeat("0", 64)), 0o600)
	os.MkdirAll(filepath.Join(xdg, "indusvx"), 0o700)
	os.Symlink(filepath.Join(other, "k"), filepath.Join(xdg, "indusvx", transcript.KeyFile))
	if _, err := transcript.New(t.TempDir(), "m"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a linked key was used: %v", err)
	}
}

// Two writers of one conversation (two processes resuming it at once)
// take turns: no append is cut off as torn by the other's repair, and
// every line reads back.
func TestConcurrentAppendersKeepEveryLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, _ := transcript.New(dir, "m")
	say(t, tr, "start")
	a, _, err := transcript.Open(dir, tr.ID())
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := transcript.Open(dir, tr.ID())
	big := strings.Repeat("x", 64<<10) // writes large enough to be seen half done
	done := make(chan struct{})
	for _, w := range []*transcript.Transcript{a, b} {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 15 {
				say(t, w, big)
			}
		}()
	}
	<-done
	<-done
	_, lines, err := transcript.Open(dir, tr.ID())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(transcript.Messages(lines)); n != 31 {
		t.Errorf("%d messages read back, want 31", n)
	}
}
