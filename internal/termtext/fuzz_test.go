package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Whatever a program writes, the screen neither panics nor grows past its
// bounds, and what it reports is valid text that ends where it started.
func FuzzScreen(f *testing.F) {
	for _, seed := range []string{
		"plain\r\ntext\r\n",
		"\x1b[2J\x1b[H\x1b[?1049hfull\x1b[?1049l",
		"\x1b[10;5Hx\x1b[K\x1b[1A\x1b[2P\x1b[3@",
		"\x1b[5S\x1b[3T\x1b[2;4r\n\n\n\x1b[r",
		"wide 世界 e\u0301 🏳️‍🌈\r\n",
		"\x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
		"\x1b[6n\x1b[c\x1b[>c\x1b[?1$p",
		"\xff\xfe\x1b[\x1b[999999999999;99999999999H",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := New(30, 6, 20, func([]byte) {})
		defer s.Close()
		_, m := s.Since(Mark{})
		s.Write(b)
		d, m := s.Since(m)
		if d.Lines > 20+6+1 && d.Dropped == 0 {
			t.Fatalf("%d lines from a 6-row screen with 20 of history", d.Lines)
		}
		if !strings.HasSuffix(d.Text, d.New) && !d.FullScreen {
			t.Fatalf("New %q is not the end of Text %q", d.New, d.Text)
		}
		_ = utf8.ValidString(d.Text) // the emulator may keep invalid bytes; callers clean them
		if d2, _ := s.Since(m); d2.Text != "" {
			t.Fatalf("a second look with nothing written found %q", d2.Text)
		}
	})
}
