package shell

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// lineTexts renders what a read returned as plain strings.
func lineTexts(u unread) []string {
	var out []string
	for _, l := range u.lines {
		out = append(out, string(l.text))
	}
	return out
}

func TestStreamReadsOnlyWhatIsNew(t *testing.T) {
	t.Parallel()
	s := newStream("stdout", nil, "")
	s.write([]byte("one\ntwo\nthr"))
	u := s.readNew()
	if got := strings.Join(lineTexts(u), "|"); got != "one|two" || string(u.pending) != "thr" {
		t.Fatalf("first read: lines %q pending %q", got, u.pending)
	}
	if u := s.readNew(); len(u.lines) != 0 || len(u.pending) != 0 {
		t.Fatalf("second read with nothing new returned %q %q", lineTexts(u), u.pending)
	}
	s.write([]byte("ee\nfour\n"))
	u = s.readNew()
	// The unfinished line was shown up to "thr"; only its rest is new.
	if got := strings.Join(lineTexts(u), "|"); got != "ee|four" || len(u.pending) != 0 {
		t.Fatalf("third read: lines %q pending %q", got, u.pending)
	}
	s.write([]byte("five"))
	s.close()
	if got := strings.Join(lineTexts(s.readNew()), "|"); got != "five" {
		t.Fatalf("the last unfinished line was not flushed at close: %q", got)
	}
}

func TestStreamKeepsTheLastLines(t *testing.T) {
	t.Parallel()
	s := newStream("stdout", nil, "")
	var b bytes.Buffer
	const n = 3*MaxBufferedLines + 17
	for i := range n {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	s.write(b.Bytes()) // one chunk with more lines than the ring holds
	u := s.readNew()
	got := lineTexts(u)
	if len(got) != MaxBufferedLines || u.dropped != n-MaxBufferedLines {
		t.Fatalf("kept %d lines and dropped %d; want %d and %d", len(got), u.dropped, MaxBufferedLines, n-MaxBufferedLines)
	}
	if got[0] != fmt.Sprintf("line %d", n-MaxBufferedLines) || got[len(got)-1] != fmt.Sprintf("line %d", n-1) {
		t.Fatalf("kept %q .. %q", got[0], got[len(got)-1])
	}
	if _, lines, _ := s.stats(); lines != n {
		t.Fatalf("counted %d lines, want %d", lines, n)
	}
}

func TestStreamCutsLongLines(t *testing.T) {
	t.Parallel()
	s := newStream("stdout", nil, "")
	long := strings.Repeat("z", 3*MaxLineBytes+5)
	for i := 0; i < len(long); i += 1000 { // arrives in pieces
		s.write([]byte(long[i:min(i+1000, len(long))]))
	}
	s.write([]byte("\nshort\n"))
	u := s.readNew()
	if len(u.lines) != 2 || len(u.lines[0].text) > MaxLineBytes {
		t.Fatalf("got %d lines, first %d bytes", len(u.lines), len(u.lines[0].text))
	}
	// Nothing was read before, so the cut line comes back whole, with the
	// count of bytes that only the capture file has.
	if u.lines[0].cut != int64(len(long)-MaxLineBytes) || string(u.lines[1].text) != "short" {
		t.Fatalf("cut = %d, want %d; second %q", u.lines[0].cut, len(long)-MaxLineBytes, u.lines[1].text)
	}
}

// The ring's content after any chunking of any output equals a simple
// model: the last MaxBufferedLines lines, each cut to MaxLineBytes.
func TestStreamMatchesModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var b bytes.Buffer
		n := rapid.IntRange(0, 2*MaxBufferedLines+10).Draw(t, "lines")
		// Line widths cycle through a drawn pattern; drawing each width
		// separately makes the check slow without finding more.
		widths := rapid.SliceOfN(rapid.SampledFrom([]int{0, 1, 5, 40}), 1, 12).Draw(t, "widths")
		long := rapid.SliceOfN(rapid.IntRange(0, n), 0, 4).Draw(t, "long lines at")
		for i := range n {
			w := widths[i%len(widths)]
			if slices.Contains(long, i) {
				w = MaxLineBytes + i%7 - 3
			}
			fmt.Fprintf(&b, "%d:%s\n", i, strings.Repeat("w", w))
		}
		if rapid.Bool().Draw(t, "unfinished") {
			b.WriteString("tail")
		}
		data := b.Bytes()
		s := newStream("stdout", nil, "")
		chunks := rapid.SliceOfN(rapid.OneOf(rapid.IntRange(1, 9000), rapid.Just(1<<30)), 1, 8).Draw(t, "chunks")
		for i, rest := 0, data; len(rest) > 0; i++ {
			k := min(chunks[i%len(chunks)], len(rest))
			s.write(rest[:k])
			rest = rest[k:]
		}
		s.close()

		all := strings.Split(string(data), "\n")
		if all[len(all)-1] == "" {
			all = all[:len(all)-1]
		}
		want := all[max(0, len(all)-MaxBufferedLines):]
		u := s.readNew()
		if len(u.lines) != len(want) || u.dropped != int64(len(all)-len(want)) {
			t.Fatalf("kept %d dropped %d; want %d and %d", len(u.lines), u.dropped, len(want), len(all)-len(want))
		}
		for i, l := range u.lines {
			w := want[i]
			if string(l.text) != w[:min(len(w), MaxLineBytes)] || l.cut != int64(len(w)-min(len(w), MaxLineBytes)) {
				t.Fatalf("line %d: got %d bytes cut %d, want %q", i, len(l.text), l.cut, w[:min(20, len(w))])
			}
		}
	})
}
