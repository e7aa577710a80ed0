package files

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// applyUnified applies a unified diff to old, checking every context and
// removed line and every hunk count, the way patch does.
func applyUnified(old, diff string) (string, error) {
	src := splitKeep(old)
	dl := strings.Split(diff, "\n")
	if len(dl) < 2 || !strings.HasPrefix(dl[0], "--- ") || !strings.HasPrefix(dl[1], "+++ ") {
		return "", fmt.Errorf("no --- / +++ header")
	}
	var out []string
	pos := 0
	i := 2
	for i < len(dl) {
		if dl[i] == "" && i == len(dl)-1 {
			break
		}
		var a, b, c, d int
		if _, err := fmt.Sscanf(dl[i], "@@ -%d,%d +%d,%d @@", &a, &b, &c, &d); err != nil {
			return "", fmt.Errorf("line %d: bad hunk header %q", i, dl[i])
		}
		start := a - 1
		if b == 0 {
			start = a
		}
		if start < pos || start > len(src) {
			return "", fmt.Errorf("hunk %q starts at %d, before %d or past %d", dl[i], start, pos, len(src))
		}
		if wantC := len(out) + (start - pos) + 1; d > 0 && c != wantC {
			return "", fmt.Errorf("hunk %q: new start %d, want %d", dl[i], c, wantC)
		}
		out = append(out, src[pos:start]...)
		pos = start
		i++
		gotB, gotD := 0, 0
		last := byte(0)
		for ; i < len(dl) && !strings.HasPrefix(dl[i], "@@ "); i++ {
			l := dl[i]
			if l == "" {
				if i == len(dl)-1 {
					break
				}
				return "", fmt.Errorf("line %d: empty line inside a hunk", i)
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || strings.TrimSuffix(src[pos], "\n") != l[1:] {
					return "", fmt.Errorf("line %d: %q does not match source line %d", i, l, pos+1)
				}
				if l[0] == ' ' {
					out = append(out, src[pos])
					gotD++
				}
				pos++
				gotB++
			case '+':
				out = append(out, l[1:]+"\n")
				gotD++
			case '\\':
				if last != '-' {
					out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
				}
			default:
				return "", fmt.Errorf("line %d: unknown prefix in %q", i, l)
			}
			last = l[0]
		}
		if gotB != b || gotD != d {
			return "", fmt.Errorf("hunk -%d,%d +%d,%d has %d old and %d new lines", a, b, c, d, gotB, gotD)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

func diffOf(before, after string) string {
	a, b := splitKeep(before), splitKeep(after)
	return unified("a/f", "b/f", a, b, changes(len(a), len(b), matchLines(a, b)))
}

func TestUnified(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, before, after, want string }{
		{"one changed line", "a\nb\nc\n", "a\nB\nc\n",
			"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"insertion into empty file", "", "x\ny\n",
			"--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"deleting everything", "x\n", "",
			"--- a/f\n+++ b/f\n@@ -1,1 +0,0 @@\n-x\n"},
		{"missing final newline is marked", "a\nb", "a\nc",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"adding a final newline", "a", "a\n",
			"--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+a\n"},
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
				if applied, err := applyUnified(tc.before, got); err != nil || applied != tc.after {
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
		got, err := applyUnified(before, d)
		if err != nil || got != after {
			t.Fatalf("round %d: diff does not reproduce the new text (%v)\nbefore %q\nafter %q\ndiff:\n%s", round, err, before, after, d)
		}
	}
}

// The diff is cut at MaxDiffBytes with a note, between lines.
func TestUnifiedCut(t *testing.T) {
	t.Parallel()
	before := strings.Repeat("a line of text that will be replaced\n", 4000)
	after := strings.Repeat("a completely different line of text!\n", 4000)
	d := diffOf(before, after)
	if len(d) > MaxDiffBytes+200 || !strings.HasSuffix(d, "[diff cut at 50 KB; read the file to see the rest of the change]\n") {
		t.Errorf("diff of %d bytes ends %q", len(d), d[len(d)-100:])
	}
}
