package checkpoint

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
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

// The edit script rebuilds both sides and is as short as the longest
// common subsequence allows.
func TestDiffLinesIsMinimal(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.SampledFrom([]string{"a\n", "b\n", "c\n", "d"})
		a := rapid.SliceOfN(line, 0, 30).Draw(t, "a")
		b := rapid.SliceOfN(line, 0, 30).Draw(t, "b")
		edits := diffLines(a, b)
		var ra, rb []string
		changes := 0
		for _, e := range edits {
			switch e.kind {
			case ' ':
				if a[e.a] != b[e.b] {
					t.Fatalf("kept line differs: %q %q", a[e.a], b[e.b])
				}
				ra, rb = append(ra, a[e.a]), append(rb, b[e.b])
			case '-':
				ra = append(ra, a[e.a])
				changes++
			case '+':
				rb = append(rb, b[e.b])
				changes++
			}
		}
		if strings.Join(ra, "") != strings.Join(a, "") || strings.Join(rb, "") != strings.Join(b, "") {
			t.Fatalf("edit script does not rebuild the inputs")
		}
		if want := len(a) + len(b) - 2*lcs(a, b); changes != want {
			t.Fatalf("%d changes, minimum is %d", changes, want)
		}
	})
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// GNU patch applies our diffs: the output is a real unified diff.
func TestUnifiedAppliesWithPatch(t *testing.T) {
	t.Parallel()
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch is not installed")
	}
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.SampledFrom([]string{"alpha\n", "beta\n", "gamma\n", "delta\n", "eps"})
		a := strings.Join(rapid.SliceOfN(line, 1, 60).Draw(t, "a"), "")
		b := strings.Join(rapid.SliceOfN(line, 1, 60).Draw(t, "b"), "")
		if a == b {
			return
		}
		f := filepath.Join(dir, "f")
		if err := os.WriteFile(f, []byte(a), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(patch, "-s", "-f", f)
		cmd.Stdin = strings.NewReader(Unified("a/f", "b/f", []byte(a), []byte(b)))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch: %v\n%s\ndiff:\n%s", err, out, Unified("a/f", "b/f", []byte(a), []byte(b)))
		}
		if got, _ := os.ReadFile(f); string(got) != b {
			t.Fatalf("patched file differs:\n%q\nwant\n%q", got, b)
		}
	})
}

// Past maxDiffEdits the diff falls back to replacing the middle whole,
// still correct.
func TestUnifiedFallbackForHugeChanges(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := range 3 * maxDiffEdits {
		a.WriteString("a" + string(rune('0'+i%10)) + "\n")
		b.WriteString("b" + string(rune('0'+i%10)) + "\n")
	}
	got := Unified("a", "b", []byte(a.String()), []byte(b.String()))
	if strings.Count(got, "\n-") != 3*maxDiffEdits || strings.Count(got, "\n+") != 3*maxDiffEdits+1 {
		t.Errorf("fallback diff has %d removals and %d additions", strings.Count(got, "\n-"), strings.Count(got, "\n+"))
	}
}
