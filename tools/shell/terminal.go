package shell

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/indusagi/induscode/internal/termtext"
)

// DefaultCols and DefaultRows are the size of a process's terminal when
// start names none: wide enough that a table or a stack trace rarely
// wraps, tall enough for a full-screen program to show a page.
const (
	DefaultCols = 120
	DefaultRows = 40
)

// The bounds of a terminal's size: below them full-screen programs give
// up, above them one screen costs the model more than it can read.
const (
	minCols, maxCols = 20, 400
	minRows, maxRows = 5, 200
)

// terminal is the output of a process that runs in a pseudo-terminal: the
// raw bytes go to a stream (its ring and capture file, for raw reads),
// and through a terminal emulator that turns them into the text a person
// would see.
type terminal struct {
	raw *stream
	scr *termtext.Screen

	mu   sync.Mutex
	mark termtext.Mark // what the model has read
}

func (t *terminal) write(p []byte) {
	t.scr.Write(p)
	t.raw.write(p) // after the screen: its notifier wakes the waiters
}

func (t *terminal) close() {
	t.raw.close()
	t.scr.Close()
}

// since returns what the screen shows that is new since m.
func (t *terminal) since(m termtext.Mark) termtext.Delta {
	d, _ := t.scr.Since(m)
	return d
}

// readMark returns the mark of the last read.
func (t *terminal) readMark() termtext.Mark {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mark
}

// renderNew reads what is new since the last read and renders it within
// budget characters: as the screen shows it, or with raw the bytes the
// program wrote. Either way both read positions move.
func (t *terminal) renderNew(re *regexp.Regexp, budget int, raw bool) string {
	t.mu.Lock()
	d, m := t.scr.Since(t.mark)
	t.mark = m
	t.mu.Unlock()
	u := t.raw.readNew()
	if raw {
		if len(u.lines) == 0 && len(u.pending) == 0 && u.dropped == 0 {
			return ""
		}
		return renderStream(t.raw, u, re, budget)
	}
	if d.Text == "" && d.Dropped == 0 {
		return ""
	}
	lines := strings.Split(d.Text, "\n")
	shown, matched, total := fitLines(lines, re, budget)
	var sb strings.Builder
	if d.FullScreen {
		cols, rows := t.scr.Size()
		fmt.Fprintf(&sb, "--- screen (%dx%d, a full-screen program) ---\n", cols, rows)
	} else {
		lineHeader(&sb, "terminal", matched, total, re)
	}
	lineNotices(&sb, d.Dropped, matched-len(shown), budget, "the raw output is in "+t.raw.captureName())
	sb.WriteString(strings.Join(shown, "\n"))
	return strings.ToValidUTF8(sb.String(), "\uFFFD")
}

// terminalSize checks a requested size; zero takes the default.
func terminalSize(cols, rows int) (int, int, error) {
	if cols == 0 {
		cols = DefaultCols
	}
	if rows == 0 {
		rows = DefaultRows
	}
	if cols < minCols || cols > maxCols || rows < minRows || rows > maxRows {
		return 0, 0, fmt.Errorf("a terminal of %dx%d is out of range: cols may be %d to %d and rows %d to %d (default %dx%d)",
			cols, rows, minCols, maxCols, minRows, maxRows, DefaultCols, DefaultRows)
	}
	return cols, rows, nil
}
