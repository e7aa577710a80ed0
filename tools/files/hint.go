package files

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Near-match search limits. The hint runs only after a failed edit, but a
// failed edit on a large file must still answer quickly.
const (
	// minHintSimilarity is the average per-line similarity below which
	// the closest text is not worth showing: it would mislead more than
	// help.
	minHintSimilarity = 0.5
	// hintBudget bounds the line comparisons of one search (a quarter of
	// a second on a 200k-line file); past it, fewer lines of old_string
	// take part in the scoring.
	hintBudget = 2_000_000
	// hintLineBytes is how much of each line the similarity looks at.
	hintLineBytes = 400
	// hintShowLines and hintShowChars bound the snippet in the message.
	hintShowLines = 8
	hintShowChars = 200
)

// nearMatch is the text of a file closest to an old_string that was not
// found in it.
type nearMatch struct {
	line      int      // 1-based number of its first line
	lines     []string // its lines as they are in the file, line ends dropped
	score     float64  // average per-line similarity, 0 to 1
	spaceOnly bool     // equal to old_string once whitespace is ignored
}

// hint explains a failed match: the closest text and its line, or that
// nothing is close.
func hint(text, old string) string {
	if bare, ok := stripLineNumbers(old); ok {
		if i := strings.Index(toLF(text), bare); i >= 0 {
			return fmt.Sprintf("old_string starts its lines with the line numbers and tabs that read adds; without them it matches at line %d. Send it again with only the text after each tab.", 1+strings.Count(toLF(text)[:i], "\n"))
		}
	}
	m, ok := closest(text, old)
	switch {
	case !ok:
		return "Nothing in the file resembles it; read the file to see its current content, then copy the text to replace exactly."
	case m.spaceOnly:
		return fmt.Sprintf("The text at line %d matches it except for whitespace (indentation, tabs or trailing spaces):\n%sCopy it exactly as read shows it: everything after the tab that follows the line number.", m.line, numbered(m))
	}
	return fmt.Sprintf("The closest text is at line %d (about %d%% similar):\n%sRead the file around that line and copy the text exactly.", m.line, int(m.score*100), numbered(m))
}

func numbered(m nearMatch) string {
	var sb strings.Builder
	for i, l := range m.lines {
		if i == hintShowLines {
			fmt.Fprintf(&sb, "   ...\t(%d more lines)\n", len(m.lines)-i)
			break
		}
		if r, cut := runeIndex([]byte(l), hintShowChars); cut {
			l = l[:r] + " …"
		}
		fmt.Fprintf(&sb, "%6d\t%s\n", m.line+i, l)
	}
	return sb.String()
}

// numberPrefix is read's line prefix: a right-aligned number and a tab.
var numberPrefix = regexp.MustCompile(`(?m)^ *[0-9]+\t`)

// stripLineNumbers removes read's prefixes from s when every non-empty
// line of s has one.
func stripLineNumbers(s string) (string, bool) {
	lines := strings.Split(toLF(s), "\n")
	for _, l := range lines {
		if l != "" && !numberPrefix.MatchString(l) {
			return "", false
		}
	}
	return numberPrefix.ReplaceAllString(toLF(s), ""), true
}

// closest finds the window of lines in text most like old. It first looks
// for a window equal to old with whitespace ignored (old's first and last
// lines may be the tail and head of a file line); failing that it scores
// every window by the average bigram similarity of its lines to old's.
func closest(text, old string) (nearMatch, bool) {
	lines := splitLines(text)
	want := splitLines(strings.TrimSuffix(toLF(old), "\n"))
	if len(lines) == 0 || len(want) == 0 {
		return nearMatch{}, false
	}
	k := len(want)
	window := func(start int) nearMatch {
		end := min(start+k, len(lines))
		return nearMatch{line: start + 1, lines: lines[start:end]}
	}
	if start, ok := spaceInsensitive(lines, want); ok {
		m := window(start)
		m.spaceOnly, m.score = true, 1
		return m, true
	}

	// Score with the most distinctive (longest) lines of old that the
	// budget allows.
	picked := make([]int, 0, k)
	for j, w := range want {
		if strings.TrimSpace(w) != "" {
			picked = append(picked, j)
		}
	}
	if len(picked) == 0 {
		return nearMatch{}, false
	}
	slices.SortStableFunc(picked, func(a, b int) int {
		return len(strings.TrimSpace(want[b])) - len(strings.TrimSpace(want[a]))
	})
	picked = picked[:min(len(picked), max(1, hintBudget/len(lines)))]
	grams := make([][]uint16, k)
	for _, j := range picked {
		grams[j] = bigrams(want[j], nil)
	}
	// A window may start anywhere, even so late that old runs past the
	// end of the file (the model's text may have lines the file lacks).
	starts := len(lines)
	score := make([]float32, starts)
	var buf []uint16
	for i, l := range lines {
		buf = bigrams(l, buf[:0])
		for _, j := range picked {
			s := i - j
			if s < 0 || s >= starts {
				continue
			}
			score[s] += float32(dice(buf, grams[j], l, want[j]))
		}
	}
	best := 0
	for s := range score {
		if score[s] > score[best] {
			best = s
		}
	}
	avg := float64(score[best]) / float64(len(picked))
	if avg < minHintSimilarity {
		return nearMatch{}, false
	}
	m := window(best)
	m.score = avg
	return m, true
}

// spaceInsensitive finds a window of lines equal to want once runs of
// whitespace are ignored; want's first line may end a file line and its
// last may begin one.
func spaceInsensitive(lines, want []string) (int, bool) {
	k := len(want)
	sq := make([]string, k)
	for j, w := range want {
		sq[j] = squeeze(w)
	}
	if k == 1 && sq[0] == "" {
		return 0, false
	}
	for s := 0; s+k <= len(lines); s++ {
		if k == 1 {
			if strings.Contains(squeeze(lines[s]), sq[0]) {
				return s, true
			}
			continue
		}
		if !strings.HasSuffix(squeeze(lines[s]), sq[0]) {
			continue
		}
		ok := strings.HasPrefix(squeeze(lines[s+k-1]), sq[k-1])
		for j := 1; ok && j < k-1; j++ {
			ok = squeeze(lines[s+j]) == sq[j]
		}
		if ok {
			return s, true
		}
	}
	return 0, false
}

// squeeze removes all whitespace from s, so indentation, tabs against
// spaces and trailing blanks no longer count.
func squeeze(s string) string {
	if !strings.ContainsAny(s, " \t\r\v\f") {
		return s
	}
	return strings.Join(strings.Fields(s), "")
}

// splitLines splits s at '\n' and drops a '\r' before it.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// bigrams appends the sorted byte pairs of s, trimmed and cut to
// hintLineBytes, to dst.
func bigrams(s string, dst []uint16) []uint16 {
	s = strings.TrimSpace(s)
	if len(s) > hintLineBytes {
		s = s[:hintLineBytes]
	}
	for i := 0; i+1 < len(s); i++ {
		dst = append(dst, uint16(s[i])<<8|uint16(s[i+1]))
	}
	slices.Sort(dst)
	return dst
}

// dice is the Sørensen–Dice similarity of two sorted bigram multisets; the
// strings decide when a line is too short to have bigrams.
func dice(a, b []uint16, sa, sb string) float64 {
	if len(a) == 0 || len(b) == 0 {
		if strings.TrimSpace(sa) == strings.TrimSpace(sb) {
			return 1
		}
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}
