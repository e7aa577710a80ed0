package linediff

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testpeer"

	"pgregory.net/rapid"
)

func diffOf(before, after string) string {
	a, b := Lines(before), Lines(after)
	d, _ := Unified("a/f", "b/f", a, b, Diff(a, b), Options{Context: 3, StripCR: true})
	return d
}

func TestUnified(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, before, after, want string }{
		{"one changed line", "a\nb\nc\n", "a\nB\nc\n",
			"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"insertion into empty file", "", "x\ny\n",
			"--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"deleting everything", "x\n", "",
			"--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n"},
		{"missing final newline is marked", "a\nb", "a\nc",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"adding a final newline", "a", "a\n",
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{"distant changes make two hunks", numberedLines(20), strings.Replace(strings.Replace(numberedLines(20), "line 2\n", "two\n", 1), "line 19\n", "nineteen\n", 1),
			"--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n@@ -16,5 +16,5 @@\n line 16\n line 17\n line 18\n-line 19\n+nineteen\n line 20\n"},
		{"CRLF shown as plain lines", "a\r\nb\r\n", "a\r\nc\r\n",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"},
		{"no change", "same\n", "same\n", "--- a/f\n+++ b/f\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := diffOf(tc.before, tc.after)
			if got != tc.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, tc.want)
			}
			if !strings.Contains(tc.before, "\r") {
				if applied, err := Apply(tc.before, got); err != nil || applied != tc.after {
					t.Errorf("applying gives %q, %v; want %q", applied, err, tc.after)
				}
			}
		})
	}
}

// Random edits of random files: the diff always applies and reproduces the
// new text, also for inputs large enough to take the anchored path.
func TestUnifiedRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		n := rng.IntN(40)
		if round%50 == 0 {
			n = 1500 + rng.IntN(500) // over lcsCells: the anchored path
		}
		alphabet := 3 + rng.IntN(n+3) // few distinct lines: many repeats
		var a []string
		for range n {
			a = append(a, "l"+strconv.Itoa(rng.IntN(alphabet))+"\n")
		}
		b := append([]string(nil), a...)
		for range 1 + rng.IntN(6) {
			i := rng.IntN(len(b) + 1)
			switch rng.IntN(3) {
			case 0:
				b = append(b[:i], append([]string{"new" + strconv.Itoa(rng.IntN(100)) + "\n"}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default:
				if i < len(b) {
					b[i] = "chg" + strconv.Itoa(rng.IntN(100)) + "\n"
				}
			}
		}
		before, after := strings.Join(a, ""), strings.Join(b, "")
		if rng.IntN(4) == 0 {
			after = strings.TrimSuffix(after, "\n")
		}
		d := diffOf(before, after)
		got, err := Apply(before, d)
		if err != nil || got != after {
			t.Fatalf("round %d: diff does not reproduce the new text (%v)\nbefore %q\nafter %q\ndiff:\n%s", round, err, before, after, d)
		}
	}
}

// MaxBytes cuts the diff between lines and says so.
func TestUnifiedMaxBytes(t *testing.T) {
	t.Parallel()
	a := Lines(strings.Repeat("a line of text that will be replaced\n", 4000))
	b := Lines(strings.Repeat("a completely different line of text!\n", 4000))
	d, cut := Unified("a/f", "b/f", a, b, Diff(a, b), Options{Context: 3, MaxBytes: 1000})
	if !cut || len(d) > 1000 || !strings.HasSuffix(d, "\n") {
		t.Errorf("cut=%v, %d bytes, ends %q", cut, len(d), d[max(0, len(d)-20):])
	}
	if _, cut := Unified("a/f", "b/f", a, b, Diff(a, b), Options{Context: 3}); cut {
		t.Error("cut without MaxBytes")
	}
}

// On inputs small enough for the exact method the diff is minimal: it
// keeps as many lines as the longest common subsequence.
func TestDiffIsMinimalOnSmallInputs(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.SampledFrom([]string{"a\n", "b\n", "c\n", "d"})
		a := rapid.SliceOfN(line, 0, 30).Draw(t, "a")
		b := rapid.SliceOfN(line, 0, 30).Draw(t, "b")
		changed := 0
		for _, c := range Diff(a, b) {
			changed += (c.A1 - c.A0) + (c.B1 - c.B0)
		}
		if want := len(a) + len(b) - 2*len(lcs(a, b, 0, 0)); changed != want {
			t.Fatalf("%d changed lines, minimum is %d", changed, want)
		}
	})
}

// GNU patch applies the diffs: the output is a real unified diff.
func TestUnifiedAppliesWithPatch(t *testing.T) {
	t.Parallel()
	patch := testpeer.Command(t, "patch", "install the Debian package patch")
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
		al, bl := Lines(a), Lines(b)
		d, _ := Unified("a/f", "b/f", al, bl, Diff(al, bl), Options{Context: 3})
		cmd := exec.Command(patch, "-s", "-f", f)
		cmd.Stdin = strings.NewReader(d)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch: %v\n%s\ndiff:\n%s", err, out, d)
		}
		if got, _ := os.ReadFile(f); string(got) != b {
			t.Fatalf("patched file differs:\n%q\nwant\n%q", got, b)
		}
	})
}

func numberedLines(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

func TestApplyRefusesMismatches(t *testing.T) {
	t.Parallel()
	d := diffOf("a\nb\nc\n", "a\nB\nc\n")
	for name, old := range map[string]string{"changed context": "a\nx\nc\n", "too short": "a\n"} {
		if _, err := Apply(old, d); err == nil {
			t.Errorf("%s: applied", name)
		}
	}
	if _, err := Apply("a\n", "not a diff"); err == nil {
		t.Error("garbage applied")
	}
}
