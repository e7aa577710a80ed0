package checkpoint

import (
	"strings"
	"testing"
)

func TestUnifiedShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"one line changed in the middle",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"created", "", "a\nb\n", "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"emptied", "a\n", "", "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n"},
		{"newline added at the end", "a", "a\n", "--- a\n+++ b\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{"binary", "a\x00b", "c", "Binary files a and b differ\n"},
	}
	for _, c := range cases {
		if got := Unified("a", "b", []byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}

// Two changes far apart make two hunks; close ones share one.
func TestUnifiedHunks(t *testing.T) {
	t.Parallel()
	var a, b []string
	for i := range 40 {
		a = append(a, "l"+string(rune('A'+i)))
	}
	b = append(b, a...)
	b[2], b[30], b[33] = "X", "Y", "Z"
	got := Unified("a", "b", []byte(strings.Join(a, "\n")+"\n"), []byte(strings.Join(b, "\n")+"\n"))
	if n := strings.Count(got, "@@ -"); n != 2 {
		t.Errorf("want 2 hunks, got %d:\n%s", n, got)
	}
}

// Two large files with nothing in common still give a correct diff
// quickly: every old line out, every new line in.
func TestUnifiedOfUnrelatedLargeFiles(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	const n = 6000
	for i := range n {
		a.WriteString("a" + string(rune('0'+i%10)) + "\n")
		b.WriteString("b" + string(rune('0'+i%10)) + "\n")
	}
	got := Unified("a", "b", []byte(a.String()), []byte(b.String()))
	if strings.Count(got, "\n-") != n || strings.Count(got, "\n+") != n+1 {
		t.Errorf("diff has %d removals and %d additions", strings.Count(got, "\n-"), strings.Count(got, "\n+"))
	}
}
