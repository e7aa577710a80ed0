package termtext

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newScreen(t *testing.T, cols, rows int) *Screen {
	t.Helper()
	s := New(cols, rows, 100, nil)
	t.Cleanup(s.Close)
	return s
}

// A progress bar redrawn with carriage returns reads as its last state.
func TestCarriageReturnsCollapse(t *testing.T) {
	s := newScreen(t, 80, 10)
	var b strings.Builder
	for i := 0; i <= 100; i += 10 {
		b.WriteString("\rdownloading [" + strings.Repeat("#", i/10) + strings.Repeat(".", 10-i/10) + "] " + itoa(i) + "%")
	}
	b.WriteString("\r\ndone\r\n")
	s.Write([]byte(b.String()))
	d, _ := s.Since(Mark{})
	if want := "downloading [##########] 100%\ndone\n"; d.Text != want {
		t.Errorf("text = %q, want %q", d.Text, want)
	}
}

func itoa(i int) string {
	if i == 100 {
		return "100"
	}
	return string(rune('0'+i/10)) + "0"
}

// A REPL exchange: the second read starts at the prompt line the input was
// typed on, and New leaves out what was there before the cursor.
func TestSinceStartsAtThePromptLine(t *testing.T) {
	s := newScreen(t, 40, 5)
	s.Write([]byte("Python 3\r\n>>> "))
	d, m := s.Since(Mark{})
	if d.Text != "Python 3\n>>> " {
		t.Fatalf("first read %q", d.Text)
	}
	s.Write([]byte("x = 5\r\n>>> "))
	d, m = s.Since(m)
	if d.Text != ">>> x = 5\n>>> " || d.New != "x = 5\n>>> " {
		t.Fatalf("second read text %q new %q", d.Text, d.New)
	}
	d, _ = s.Since(m)
	if d.Text != "" {
		t.Fatalf("nothing changed, got %q", d.Text)
	}
}

// Lines that scroll off the screen are still read once, in order.
func TestScrolledLinesAreKept(t *testing.T) {
	s := newScreen(t, 20, 3)
	_, m := s.Since(Mark{})
	for i := range 8 {
		s.Write([]byte("line " + string(rune('0'+i)) + "\r\n"))
	}
	d, m := s.Since(m)
	want := "line 0\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\n"
	if d.Text != want {
		t.Fatalf("got %q, want %q", d.Text, want)
	}
	s.Write([]byte("line 8\r\n"))
	if d, _ = s.Since(m); d.Text != "line 8\n" {
		t.Fatalf("after one more line: %q", d.Text)
	}
}

// A full-screen program is read as its whole screen; leaving it shows
// what the main screen gained.
func TestAlternateScreen(t *testing.T) {
	s := newScreen(t, 20, 4)
	s.Write([]byte("$ less f\r\n"))
	_, m := s.Since(Mark{})
	s.Write([]byte("\x1b[?1049h\x1b[H\x1b[2Jpage one\r\n\x1b[4;1H(END)"))
	d, m := s.Since(m)
	if !d.FullScreen || d.Text != "page one\n\n\n(END)" {
		t.Fatalf("full screen %v text %q", d.FullScreen, d.Text)
	}
	s.Write([]byte("\x1b[?1049l$ "))
	d, _ = s.Since(m)
	if d.FullScreen || d.Text != "$ " {
		t.Fatalf("after leaving: full screen %v text %q", d.FullScreen, d.Text)
	}
}

// The emulator's answers to a program's questions reach the answer
// function: here the cursor position report a shell asks for.
func TestAnswers(t *testing.T) {
	got := make(chan []byte, 1)
	s := New(20, 4, 10, func(b []byte) { got <- b })
	defer s.Close()
	s.Write([]byte("ab\x1b[6n"))
	if b := <-got; string(b) != "\x1b[1;3R" {
		t.Fatalf("answer %q", b)
	}
}

func TestModes(t *testing.T) {
	s := newScreen(t, 20, 4)
	s.Write([]byte("\x1b[?1h\x1b[?2004h"))
	if !s.AppCursorKeys() || !s.BracketedPaste() {
		t.Fatal("modes not seen")
	}
	s.Write([]byte("\x1b[?1l"))
	if s.AppCursorKeys() {
		t.Fatal("reset not seen")
	}
}
