//go:build linux

// Change times are read from Linux's stat here; the index itself is
// tested on every platform in internal/searchindex.

package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitClockPast waits until the file system's clock has passed the
// change times of every file under dir by more than the index's racy
// window, so that a build trusts them: a probe file's time is the clock.
func waitClockPast(t *testing.T, dir string) {
	t.Helper()
	var newest int64
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := os.Lstat(p); err == nil {
				newest = max(newest, fi.Sys().(*syscall.Stat_t).Ctim.Nano())
			}
		}
		return nil
	})
	probe := filepath.Join(t.TempDir(), "clock")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := os.WriteFile(probe, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(probe)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Sys().(*syscall.Stat_t).Mtim.Nano() > newest+int64(250*time.Millisecond) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the file system's clock did not move")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// indusrOut runs the real binary in dir and returns its output.
func indusrOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command(indusr, append([]string{"--cwd", dir, "--no-mcp"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("indusr %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func indexedTree(t *testing.T) string {
	files := map[string]string{"a.txt": "first\nneedle_rare here\n"}
	for _, n := range []string{"b.txt", "c/d.txt", "c/e.go", "f.md"} {
		files[n] = strings.Repeat("plain words only\n", 30)
	}
	return workspace(t, files)
}

// TestOneShotGrepSeesOutsideEdit: with an index that trusts every file,
// another process edits a file and the next `indusr call grep` finds the
// new text, and says the same as without the index.
func TestOneShotGrepSeesOutsideEdit(t *testing.T) {
	t.Parallel()
	dir := indexedTree(t)
	waitClockPast(t, dir)
	if out := indusrOut(t, dir, "index", "build"); !strings.Contains(out, "indexed 5 files") {
		t.Fatalf("index build: %s", out)
	}
	if out := indusrOut(t, dir, "index", "status"); !strings.Contains(out, "dirty  0 files") {
		t.Fatalf("the index does not trust the files: %s", out)
	}
	grep := `{"pattern":"needle_rare","output_mode":"content"}`
	if out := indusrOut(t, dir, "call", "grep", grep); strings.TrimSpace(out) != "a.txt:2:needle_rare here" {
		t.Fatalf("grep with the index: %q", out)
	}
	edit := exec.Command("sh", "-c", "printf 'now a needle_rare too\\n' >> c/d.txt")
	edit.Dir = dir
	if out, err := edit.CombinedOutput(); err != nil {
		t.Fatalf("outside edit: %v %s", err, out)
	}
	want := "a.txt:2:needle_rare here\nc/d.txt:31:now a needle_rare too"
	if out := indusrOut(t, dir, "call", "grep", grep); strings.TrimSpace(out) != want {
		t.Fatalf("grep after an outside edit:\n%s\nwant:\n%s", out, want)
	}
	if out := indusrOut(t, dir, "--no-index", "call", "grep", grep); strings.TrimSpace(out) != want {
		t.Fatalf("grep --no-index:\n%s", out)
	}
	if out := indusrOut(t, dir, "index", "status"); !strings.Contains(out, "dirty  1 files") {
		t.Fatalf("status after the edit: %s", out)
	}
}

// TestServeGrepSeesOutsideEdit: indusr serve builds its index in the
// background on the first grep; once built and trusting every file,
// another process edits a file and the next grep finds the new text.
func TestServeGrepSeesOutsideEdit(t *testing.T) {
	t.Parallel()
	dir := indexedTree(t)
	waitClockPast(t, dir)
	cs := stdioClient(t, dir, nil, "--no-mcp")
	args := map[string]any{"pattern": "needle_rare", "output_mode": "content"}
	if out := mustSucceed(t, "grep", call(t, cs, "grep", args)); strings.TrimSpace(out) != "a.txt:2:needle_rare here" {
		t.Fatalf("first grep: %q", out)
	}
	idx := filepath.Join(dir, ".indusvx", "index", "grep-trigrams.idx")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(idx); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("serve built no index after the first grep")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if out := indusrOut(t, dir, "index", "status"); !strings.Contains(out, "dirty  0 files") {
		t.Fatalf("the index does not trust the files: %s", out)
	}
	if out := mustSucceed(t, "grep", call(t, cs, "grep", args)); strings.TrimSpace(out) != "a.txt:2:needle_rare here" {
		t.Fatalf("grep with the index: %q", out)
	}
	cmd := exec.Command("sh", "-c", "printf 'now a needle_rare too\\n' >> c/d.txt")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("outside edit: %v %s", err, out)
	}
	want := "a.txt:2:needle_rare here\nc/d.txt:31:now a needle_rare too"
	if out := mustSucceed(t, "grep", call(t, cs, "grep", args)); strings.TrimSpace(out) != want {
		t.Fatalf("grep after an outside edit:\n%s\nwant:\n%s", out, want)
	}
}

// TestServeGrepSeesSilentWrites: writes that make no event in the
// watched tree (through a hard link from outside the workspace, through
// a shared mapping) are found by serve's indexed grep, as by a scan: the
// linked file by the very next grep, the mapped one within the watch's
// trust (a few seconds).
func TestServeGrepSeesSilentWrites(t *testing.T) {
	t.Parallel()
	dir := indexedTree(t)
	outside := filepath.Join(t.TempDir(), "d-link")
	if err := os.Link(filepath.Join(dir, "c", "d.txt"), outside); err != nil {
		t.Fatal(err)
	}
	waitClockPast(t, dir)
	cs := stdioClient(t, dir, nil, "--no-mcp")
	args := map[string]any{"pattern": "needle_rare", "output_mode": "files_with_matches"}
	mustSucceed(t, "grep", call(t, cs, "grep", args))
	idx := filepath.Join(dir, ".indusvx", "index", "grep-trigrams.idx")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(idx); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("serve built no index after the first grep")
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitClockPast(t, dir)
	// The watch is armed by this grep, which checks every stamp.
	if out := mustSucceed(t, "grep", call(t, cs, "grep", args)); strings.Contains(out, "d.txt") {
		t.Fatalf("grep before the write: %q", out)
	}
	f, err := os.OpenFile(outside, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("needle_rare through a link\n")
	f.Close()
	if out := mustSucceed(t, "grep", call(t, cs, "grep", args)); !strings.Contains(out, "c/d.txt") {
		t.Fatalf("grep after a write through a hard link from outside: %q", out)
	}
	// A write through a shared mapping.
	f, err = os.OpenFile(filepath.Join(dir, "f.md"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, 64, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	copy(mem, "needle_rare")
	syscall.Munmap(mem)
	f.Close()
	deadline = time.Now().Add(30 * time.Second)
	for {
		out := mustSucceed(t, "grep", call(t, cs, "grep", args))
		if strings.Contains(out, "f.md") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after a write through a mapping, grep still misses it: %q", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
