package output

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

type memLog struct{ bytes.Buffer }

func (*memLog) Close() error { return nil }

// feed writes data to a fresh clip in chunks of the given sizes (cycled).
func feed(data []byte, chunks ...int) (*Clip, *memLog) {
	log := new(memLog)
	c := &Clip{OpenLog: func() (io.WriteCloser, string, error) { return log, "/log", nil }}
	for i := 0; len(data) > 0; i++ {
		n := min(chunks[i%len(chunks)], len(data))
		c.Write(data[:n])
		data = data[n:]
	}
	c.Close()
	return c, log
}

func TestClip(t *testing.T) {
	t.Parallel()
	lines := func(n, width int) []byte {
		var b bytes.Buffer
		for i := range n {
			fmt.Fprintf(&b, "%0*d\n", width-1, i)
		}
		return b.Bytes()
	}
	cases := []struct {
		name      string
		data      []byte
		truncated bool
		marker    string // regexp for the marker, when truncated
	}{
		{"empty", nil, false, ""},
		{"exactly the limit", lines(MaxModelChars/100, 100), false, ""},
		{"one byte over", append(lines(MaxModelChars/100, 100), 'x'), true, `\[\.\.\. \d+ lines omitted \.\.\.\]`},
		{"many lines", lines(10000, 10), true, `\[\.\.\. \d+ lines omitted \.\.\.\]`},
		{"one huge line", bytes.Repeat([]byte("y"), 100000), true, `\[\.\.\. \d+ bytes omitted \.\.\.\]`},
		{"multibyte runes", bytes.Repeat([]byte("ü€😀"), 20000), true, `\[\.\.\. \d+ bytes omitted \.\.\.\]`},
	}
	for _, c := range cases {
		for _, chunk := range []int{1 << 20, 4096, 7} {
			t.Run(fmt.Sprintf("%s/chunk%d", c.name, chunk), func(t *testing.T) {
				cl, log := feed(c.data, chunk)
				got := cl.Text()
				if cl.Truncated() != c.truncated {
					t.Fatalf("truncated = %v, want %v", cl.Truncated(), c.truncated)
				}
				if !utf8.ValidString(got) || strings.ContainsRune(got, utf8.RuneError) && !bytes.ContainsRune(c.data, utf8.RuneError) {
					t.Errorf("text has a broken character")
				}
				if len([]rune(got)) > MaxModelChars {
					t.Errorf("text is %d characters, over %d", len([]rune(got)), MaxModelChars)
				}
				if !c.truncated {
					if got != string(c.data) {
						t.Errorf("text differs from the output")
					}
					if log.Len() != 0 {
						t.Errorf("a log was written for output that fit")
					}
					return
				}
				if !bytes.Equal(log.Bytes(), c.data) {
					t.Errorf("log has %d bytes, want all %d", log.Len(), len(c.data))
				}
				if !regexp.MustCompile(c.marker).MatchString(got) {
					t.Errorf("no marker %q in text", c.marker)
				}
				i := strings.Index(got, "[... ")
				head, tail := got[:i], got[strings.Index(got, " ...]\n")+len(" ...]\n"):]
				if !bytes.HasPrefix(c.data, []byte(strings.TrimSuffix(head, "\n"))) {
					t.Errorf("head is not the start of the output")
				}
				if !bytes.HasSuffix(c.data, []byte(tail)) {
					t.Errorf("tail is not the end of the output")
				}
				if cl.total != int64(len(c.data)) {
					t.Errorf("total = %d, want %d", cl.total, len(c.data))
				}
			})
		}
	}
}

// However the output is chunked, the model's text is the same and within
// the limit, and the log holds everything.
func TestClipChunkingDoesNotMatter(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var b bytes.Buffer
		n := rapid.IntRange(0, 3000).Draw(t, "lines")
		for range n {
			b.WriteString(strings.Repeat("a", rapid.IntRange(0, 80).Draw(t, "width")))
			b.WriteByte('\n')
		}
		data := b.Bytes()
		whole, _ := feed(data, 1<<30)
		chunks := rapid.SliceOfN(rapid.IntRange(1, 5000), 1, 10).Draw(t, "chunks")
		parts, log := feed(data, chunks...)
		if whole.Text() != parts.Text() {
			t.Fatalf("chunking changed the text")
		}
		if len(parts.Text()) > MaxModelChars {
			t.Fatalf("text over the limit: %d", len(parts.Text()))
		}
		if parts.Truncated() && !bytes.Equal(log.Bytes(), data) {
			t.Fatalf("log incomplete")
		}
	})
}
