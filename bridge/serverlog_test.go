package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server's log file never grows past its limit: it is rotated to
// NAME.log.1, which is replaced at the next rotation, so a chatty server
// costs at most two files of the limit.
func TestServerLogIsRotated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := newServerLog(dir, "chatty")
	if err != nil {
		t.Fatal(err)
	}
	l.max = 4096
	line := strings.Repeat("x", 100)
	for range 200 { // about 5 limits' worth
		l.line("stderr", line)
	}
	l.close()
	for _, name := range []string{"chatty.log", "chatty.log.1"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fi.Size() > l.max+int64(len(line))+64 {
			t.Errorf("%s is %d bytes, over the %d limit", name, fi.Size(), l.max)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files in the log folder, want 2", len(ents))
	}
	// A log over the limit when a new fleet opens it is rotated first.
	big := filepath.Join(dir, "big.log")
	if err := os.WriteFile(big, make([]byte, maxLogFile), 0o644); err != nil {
		t.Fatal(err)
	}
	l2, err := newServerLog(dir, "big")
	if err != nil {
		t.Fatal(err)
	}
	l2.line("stderr", "fresh")
	l2.close()
	if fi, _ := os.Stat(big); fi.Size() > 1024 {
		t.Errorf("big.log was not rotated: %d bytes", fi.Size())
	}
	if fi, err := os.Stat(big + ".1"); err != nil || fi.Size() != maxLogFile {
		t.Errorf("big.log.1: %v", err)
	}
}
