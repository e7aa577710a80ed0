// Package termtext turns what a program writes to a terminal into text a
// reader can follow. The bytes go through a terminal emulator
// (github.com/charmbracelet/x/vt, the emulator of Charm's terminal tools),
// so cursor moves, erases, scroll regions and carriage-return redraws end
// up where a terminal would show them: a progress bar redrawn a thousand
// times is one line in its last state. Lines that scroll off the top are
// kept as plain text in a bounded history.
//
// A reader keeps a [Mark] and asks what changed since it ([Screen.Since]):
// on the main screen, the lines from the first one that differs to the
// cursor, so a REPL's answer comes with the prompt line it was typed on;
// while a full-screen program (the alternate screen) runs, the whole
// screen whenever it changed. Colours and other attributes are dropped.
package termtext

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// piece bounds one write into the emulator. Lines that scroll off are
// moved out of the emulator's scrollback after every piece, so the
// scrollback never fills (a full one shifts its whole slice per line).
const piece = 4096

// scrollbackRoom is the emulator's scrollback size: more than one piece
// can push (a line feed per byte, or a few bytes of CSI S per screenful),
// so nothing is dropped before it is moved to the history.
const scrollbackRoom = 1 << 18

// Screen is a terminal of a fixed size fed with a program's output. It is
// safe for concurrent use.
type Screen struct {
	mu   sync.Mutex
	emu  *vt.Emulator
	pipe *io.PipeWriter // the emulator's answers; closed by Close

	hist      []string // ring of lines scrolled off the main screen
	histStart int
	histTotal int64 // lines ever scrolled off: the index of the first screen row
	keep      int

	appCursor bool // the program asked for application cursor keys
	bracketed bool // the program asked for bracketed paste
	region    bool // the main screen scrolls only part of itself (DECSTBM)
	slowOnly  bool // tests: never take the scroll-through path
	shortcuts int  // tests: how often it was taken
	replies   sync.WaitGroup
}

// New returns a screen of cols x rows that keeps the last keep lines that
// scroll off. A program asks its terminal questions (where is the cursor,
// what are you); the answers are passed to answer, from a goroutine of the
// screen's own, in order. answer may be nil.
func New(cols, rows, keep int, answer func([]byte)) *Screen {
	s := &Screen{emu: vt.NewEmulator(cols, rows), keep: max(keep, 1)}
	s.emu.SetScrollbackSize(scrollbackRoom)
	// Watch the scroll region (returning false lets the emulator's own
	// handler run too): lines scroll through the whole screen only
	// without one.
	s.emu.RegisterCsiHandler('r', func(params ansi.Params) bool {
		if !s.emu.IsAltScreen() {
			top, _, _ := params.Param(0, 1)
			bottom, _, _ := params.Param(1, 0)
			s.region = top > 1 || (bottom > 0 && bottom < s.emu.Height())
		}
		return false
	})
	s.emu.SetCallbacks(vt.Callbacks{
		EnableMode:  func(m ansi.Mode) { s.setMode(m, true) },
		DisableMode: func(m ansi.Mode) { s.setMode(m, false) },
	})
	// The emulator writes its answers to a pipe that must be read, or the
	// next answer blocks its Write. Closing the write end (not the
	// emulator) ends the reader without touching the emulator's state.
	s.pipe, _ = s.emu.InputPipe().(*io.PipeWriter)
	s.replies.Add(1)
	go func() {
		defer s.replies.Done()
		buf := make([]byte, 1024)
		for {
			n, err := s.emu.Read(buf)
			if n > 0 && answer != nil {
				answer(slices.Clone(buf[:n]))
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

// setMode runs inside Write, under s.mu.
func (s *Screen) setMode(m ansi.Mode, on bool) {
	switch m {
	case ansi.ModeCursorKeys:
		s.appCursor = on
	case ansi.ModeBracketedPaste:
		s.bracketed = on
	}
}

// Close ends the goroutine that passes answers on and waits for it.
func (s *Screen) Close() {
	if s.pipe != nil {
		s.pipe.CloseWithError(io.EOF)
	}
	s.replies.Wait()
}

// Write feeds output to the terminal. It never fails.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		if k := s.scrollThrough(p); k > 0 {
			p = p[k:]
			continue
		}
		// A piece ends at a line's end where it can, at most a screenful
		// of lines on, so the lines after it may scroll through.
		k := min(len(p), piece)
		if i := bytes.LastIndexByte(p[:k], '\n'); i >= 0 {
			k = i + 1
		}
		for i, lines := 0, 0; i < k; i++ {
			if p[i] == '\n' {
				if lines++; lines == s.emu.Height() {
					k = i + 1
				}
			}
		}
		s.feed(p[:k])
		p = p[k:]
		s.drain()
	}
	return n, nil
}

// feed writes one piece into the emulator. Its input is whatever a
// program prints, so a sequence it mishandles must not take the process
// down: the piece is dropped with a line saying so, and the next one goes
// on from the emulator's state.
func (s *Screen) feed(p []byte) {
	defer func() {
		if r := recover(); r != nil {
			s.push(fmt.Sprintf("[the terminal emulator failed on %d bytes of output (%v); they are only in the raw output]", len(p), r))
		}
	}()
	_, _ = s.emu.Write(p)
}

// drain moves the lines the emulator scrolled off into the history.
func (s *Screen) drain() {
	sb := s.emu.Scrollback()
	if sb == nil || sb.Len() == 0 {
		return
	}
	for _, l := range sb.Lines() {
		s.push(render(l, -1))
	}
	sb.Clear()
}

func (s *Screen) push(line string) {
	if len(s.hist) < s.keep {
		s.hist = append(s.hist, line)
	} else {
		s.hist[s.histStart] = line
		s.histStart = (s.histStart + 1) % s.keep
	}
	s.histTotal++
}

// AppCursorKeys reports whether the program asked for application cursor
// keys (arrows sent as ESC O A rather than ESC [ A).
func (s *Screen) AppCursorKeys() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appCursor
}

// BracketedPaste reports whether the program asked for pasted text to be
// marked as such.
func (s *Screen) BracketedPaste() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bracketed
}

// Size returns the terminal's columns and rows.
func (s *Screen) Size() (cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.Width(), s.emu.Height()
}

// Text returns what the terminal shows now: the current screen, its rows
// without trailing blanks, up to the last row that holds text or the
// cursor.
func (s *Screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows, _, _ := s.view()
	return strings.Join(rows, "\n")
}

// view renders the current screen: its rows up to the last one that holds
// text or the cursor, and the cursor. The cursor's row keeps its blanks up
// to the cursor, so a prompt ends with the space typed after it.
func (s *Screen) view() (rows []string, cx, cy int) {
	pos := s.emu.CursorPosition()
	cx, cy = pos.X, pos.Y
	h, w := s.emu.Height(), s.emu.Width()
	rows = make([]string, 0, h)
	last := cy
	var sb strings.Builder
	for y := range h {
		at := -1
		if y == cy {
			at = cx
		}
		sb.Reset()
		cells, blank := 0, 0
		for x := range w {
			cells, blank = addCell(&sb, s.emu.CellAt(x, y), cells, blank)
		}
		r := finish(&sb, cells, at)
		if r != "" {
			last = max(last, y)
		}
		rows = append(rows, r)
	}
	return rows[:min(last+1, len(rows))], cx, cy
}

// render is a line's text without trailing blanks, or with blanks up to
// column pad when pad >= 0.
func render(l uv.Line, pad int) string {
	var sb strings.Builder
	cells, blank := 0, 0
	for x := range l {
		cells, blank = addCell(&sb, &l[x], cells, blank)
	}
	return finish(&sb, cells, pad)
}

// addCell writes one cell: blanks are held back until text follows them,
// and the second cell of a wide character (which holds nothing) is
// skipped. cells counts the cells written, blank those held back.
func addCell(sb *strings.Builder, c *uv.Cell, cells, blank int) (int, int) {
	if c == nil || c.IsZero() || (c.Content == "" && c.Width == 0) {
		return cells, blank
	}
	if c.Content == " " || c.Content == "" {
		return cells, blank + 1
	}
	for range blank {
		sb.WriteByte(' ')
	}
	sb.WriteString(c.Content)
	return cells + blank + max(c.Width, 1), 0
}

func finish(sb *strings.Builder, cells, pad int) string {
	for ; cells < pad; cells++ {
		sb.WriteByte(' ')
	}
	return sb.String()
}

// Resize changes the terminal's size.
func (s *Screen) Resize(cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emu.Resize(cols, rows)
	s.drain()
}
