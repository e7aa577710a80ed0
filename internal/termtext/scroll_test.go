package termtext

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The scroll-through shortcut shows exactly what feeding every line
// through the emulator shows: the same history and screen after any mix
// of plain lines, progress redraws, cursor moves, scroll regions and the
// alternate screen, cut into writes anywhere.
func TestScrollThroughMatchesTheEmulator(t *testing.T) {
	taken := 0
	rapid.Check(t, func(t *rapid.T) {
		cols := rapid.IntRange(20, 50).Draw(t, "cols")
		rows := rapid.IntRange(5, 12).Draw(t, "rows")
		parts := rapid.SliceOfN(rapid.OneOf(
			rapid.Map(rapid.SliceOfN(rapid.StringMatching(`[ -~]{0,18}`), 1, 80), func(ls []string) string {
				return strings.Join(ls, "\r\n") + "\r\n"
			}),
			rapid.SampledFrom([]string{
				"\rprogress 50%", "\x1b[A", "\x1b[3;6r", "\x1b[r", "\x1b[?1049h", "\x1b[?1049l",
				"partial", "\x1b[2J", "\x1b[H", "\n", "\x1b[5S", "tab\there\r\n", "wide 世界\r\n",
			}),
		), 1, 30).Draw(t, "parts")
		cut := rapid.IntRange(1, 5000).Draw(t, "cut")
		data := []byte(strings.Join(parts, ""))

		fast := New(cols, rows, 10000, nil)
		defer fast.Close()
		slow := New(cols, rows, 10000, nil)
		defer slow.Close()
		slow.slowOnly = true
		for p := data; len(p) > 0; {
			k := min(cut, len(p))
			fast.Write(p[:k])
			slow.Write(p[:k])
			p = p[k:]
		}
		df, mf := fast.Since(Mark{})
		ds, ms := slow.Since(Mark{})
		if df != ds {
			t.Fatalf("shortcut:\n%q\nemulator:\n%q", df.Text, ds.Text)
		}
		if mf.cx != ms.cx || mf.cy != ms.cy || mf.base != ms.base {
			t.Fatalf("cursor or history differ: %+v vs %+v", mf, ms)
		}
		taken += fast.shortcuts
	})
	if taken == 0 {
		t.Fatal("no case took the shortcut; the comparison shows nothing")
	}
}

// The shortcut is taken: a long plain output costs no emulator scroll
// per line (the history still has every line, in order).
func TestScrollThroughKeepsEveryLine(t *testing.T) {
	s := newScreen(t, 40, 5)
	var b strings.Builder
	for i := range 1000 {
		b.WriteString("line " + strings.Repeat("x", i%7) + "\r\n")
	}
	s.Write([]byte(b.String()))
	s.mu.Lock()
	total := s.histTotal
	s.mu.Unlock()
	if total != 1000-4 || s.shortcuts == 0 {
		t.Fatalf("history has %d lines, want 996; shortcut taken %d times", total, s.shortcuts)
	}
}
