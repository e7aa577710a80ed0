package termtext

import "strings"

// scrollThrough takes a fast path for what most of a long output is:
// plain lines, each ending in CR LF, printed at the bottom of the main
// screen. Fed one by one, every line feed makes the emulator move the
// whole screen up a row, a cost of rows x columns cells per line; the
// result is known without it: the screen's rows and all but the last
// rows-1 of the lines go to the history, and those last lines fill the
// screen from the top. It returns how many bytes of p it consumed, 0 when
// p does not start with enough such lines or the terminal is not in the
// state the shortcut assumes (the cursor at the start of an empty bottom
// row, no scroll region, the main screen).
func (s *Screen) scrollThrough(p []byte) int {
	if s.slowOnly || s.region || s.emu.IsAltScreen() {
		return 0
	}
	h, w := s.emu.Height(), s.emu.Width()
	if pos := s.emu.CursorPosition(); pos.X != 0 || pos.Y != h-1 {
		return 0
	}
	var sb strings.Builder
	cells, blank := 0, 0
	for x := range w {
		cells, blank = addCell(&sb, s.emu.CellAt(x, h-1), cells, blank)
	}
	if cells > 0 {
		return 0
	}
	// The plain lines at the start of p: printable ASCII shorter than the
	// screen is wide, so none wraps.
	var ends []int // the offset after each line's LF
	start := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 0x20 && c < 0x7f && i-start < w-1:
			continue
		case c == '\r' && i+1 < len(p) && p[i+1] == '\n':
			ends = append(ends, i+2)
			i++
			start = i + 1
			continue
		}
		break
	}
	n := len(ends)
	if n < 2*h {
		return 0 // not worth it: the emulator does a few lines fast enough
	}
	// The screen's rows above the cursor scroll off first.
	rows, _, _ := s.view()
	for y := range h - 1 {
		line := ""
		if y < len(rows) {
			line = rows[y]
		}
		s.push(line)
	}
	// Then every line but the last h-1, which stay on the screen.
	keep := n - (h - 1)
	from := 0
	for _, end := range ends[:keep] {
		s.push(strings.TrimRight(string(p[from:end-2]), " "))
		from = end
	}
	// Erase the screen without saving it (ED 0 from the top left), and
	// write the last lines from the top: the cursor ends at the start of
	// the bottom row, as after the line feeds.
	s.feed([]byte("\x1b[H\x1b[J"))
	s.feed(p[from:ends[n-1]])
	s.drain()
	s.shortcuts++
	return ends[n-1]
}
