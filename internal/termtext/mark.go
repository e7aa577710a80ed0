package termtext

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Mark is what a reader saw at one moment: the main screen (with its place
// in the history, so lines that scroll later still line up) and, when a
// full-screen program was showing, the alternate screen. The zero Mark is
// an empty terminal.
type Mark struct {
	base   int64    // the history index of the main screen's first row
	main   []string // the main screen's rows
	cx, cy int      // the cursor on the main screen
	alt    bool     // the alternate screen was showing
	altRow []string // its rows
}

// Delta is what changed since a Mark.
type Delta struct {
	// Text is what a reader should see: on the main screen, the lines from
	// the first that changed to the cursor's line; with a full-screen
	// program showing, the whole screen. Empty when nothing changed.
	Text string
	// New is the part of Text written after the mark's cursor: what a
	// prompt pattern should be matched against, so that the echo of what
	// was typed after the last prompt does not count as a new prompt.
	New string
	// Lines is how many lines Text has.
	Lines int
	// Dropped counts changed lines that left the history before they were
	// read.
	Dropped int64
	// FullScreen says Text is the screen of a full-screen program.
	FullScreen bool
}

// Mark returns the terminal's state now.
func (s *Screen) Mark() Mark {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, _ := s.since(Mark{}, false)
	return m
}

// Since returns what changed since m, and a Mark of now.
func (s *Screen) Since(m Mark) (Delta, Mark) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now, d := s.since(m, true)
	return d, now
}

func (s *Screen) since(m Mark, diff bool) (Mark, Delta) {
	rows, cx, cy := s.view()
	if s.emu.IsAltScreen() {
		// The main screen cannot be read while hidden; the last mark of it
		// stays, so what it gained shows once the program leaves.
		now := m
		now.alt, now.altRow = true, rows
		var d Delta
		if diff && (!m.alt || !slices.Equal(m.altRow, rows)) {
			d.Text = strings.Join(rows, "\n")
			d.New, d.Lines, d.FullScreen = d.Text, len(rows), true
		}
		return now, d
	}
	now := Mark{base: s.histTotal, main: rows, cx: cx, cy: cy}
	if !diff {
		return now, Delta{}
	}
	return now, s.mainDelta(m, rows)
}

// mainDelta compares the main screen and the history with the main part
// of m. Lines are numbered from the first line ever written, so a line
// that scrolled into the history still meets its old self.
func (s *Screen) mainDelta(m Mark, rows []string) Delta {
	oldest := s.histTotal - int64(len(s.hist))
	from := m.base
	var d Delta
	if from < oldest {
		d.Dropped = oldest - from
		from = oldest
	}
	line := func(i int64) string {
		if i < s.histTotal {
			return s.hist[(s.histStart+int(i-oldest))%len(s.hist)]
		}
		return rows[i-s.histTotal]
	}
	end := s.histTotal + int64(len(rows))
	first := end
	for i := from; i < end; i++ {
		j := i - m.base
		if j >= int64(len(m.main)) || line(i) != m.main[j] {
			first = i
			break
		}
	}
	if first == end {
		return d
	}
	cursor := m.base + int64(m.cy)
	var text, fresh strings.Builder
	for i := first; i < end; i++ {
		l := line(i)
		if i > first {
			text.WriteByte('\n')
		}
		text.WriteString(l)
		switch {
		case i < cursor:
			// changed lines above the cursor: a redraw
			fresh.WriteString(l + "\n")
		case i == cursor:
			fresh.WriteString(ansi.TruncateLeft(l, m.cx, ""))
		default:
			fresh.WriteString("\n" + l)
		}
		d.Lines++
	}
	d.Text, d.New = text.String(), fresh.String()
	if first > cursor {
		d.New = d.Text
	}
	return d
}
