package shell

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// MaxInputBytes bounds what one input call sends: enough for a screenful
// of code pasted into a REPL; a larger payload belongs in a file the
// program reads.
const MaxInputBytes = 64 << 10

// InputTimeout bounds how long one input call waits for the process to
// take what it sent. A program that reads nothing fills the pipe or the
// terminal's buffer; the call then reports how much was taken instead of
// hanging.
const InputTimeout = 2 * time.Second

// answerTimeout bounds the write of the terminal's answers to a program's
// questions (cursor position, terminal type), which a program reads at
// once; the pump waits for them.
const answerTimeout = 500 * time.Millisecond

// inputOp is one step of an input call: bytes to write, or, on a pipe, a
// key a terminal's line discipline would turn into an action.
type inputOp struct {
	data      []byte
	interrupt bool // Ctrl-C on a pipe: SIGINT to the process group
	eof       bool // Ctrl-D on a pipe: close the input
}

// keyCodes are the named keys and what a terminal sends for them; app is
// the code in application cursor mode (when the program asked for it).
// Names are matched without regard to case, "-", "+" and "_".
var keyCodes = []struct {
	names    []string
	code     string
	app      string
	pipeCode string // on a pipe, when it differs
}{
	{names: []string{"Enter", "Return"}, code: "\r", pipeCode: "\n"},
	{names: []string{"Tab"}, code: "\t"},
	{names: []string{"Esc", "Escape"}, code: "\x1b"},
	{names: []string{"Backspace"}, code: "\x7f"},
	{names: []string{"Space"}, code: " "},
	{names: []string{"Up", "ArrowUp"}, code: "\x1b[A", app: "\x1bOA"},
	{names: []string{"Down", "ArrowDown"}, code: "\x1b[B", app: "\x1bOB"},
	{names: []string{"Right", "ArrowRight"}, code: "\x1b[C", app: "\x1bOC"},
	{names: []string{"Left", "ArrowLeft"}, code: "\x1b[D", app: "\x1bOD"},
	{names: []string{"Home"}, code: "\x1b[H", app: "\x1bOH"},
	{names: []string{"End"}, code: "\x1b[F", app: "\x1bOF"},
	{names: []string{"PageUp"}, code: "\x1b[5~"},
	{names: []string{"PageDown"}, code: "\x1b[6~"},
	{names: []string{"Delete"}, code: "\x1b[3~"},
}

// KeyNames lists the key names input accepts, for messages and the tool's
// description.
const KeyNames = "Enter, Tab, Esc, Backspace, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, Delete, Ctrl-A to Ctrl-Z (Ctrl-C interrupts, Ctrl-D ends input), Ctrl-\\"

func normKey(s string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "+", "", "_", "", " ", "").Replace(s))
}

// encodeKey returns the step for key name on a terminal (tty) or a pipe;
// appCursor is the terminal's cursor-key mode.
func encodeKey(name string, tty, appCursor bool) (inputOp, error) {
	n := normKey(name)
	for _, k := range keyCodes {
		for _, kn := range k.names {
			if normKey(kn) != n {
				continue
			}
			switch {
			case !tty && k.pipeCode != "":
				return inputOp{data: []byte(k.pipeCode)}, nil
			case tty && appCursor && k.app != "":
				return inputOp{data: []byte(k.app)}, nil
			}
			return inputOp{data: []byte(k.code)}, nil
		}
	}
	rest, ok := strings.CutPrefix(n, "ctrl")
	if !ok {
		rest, ok = strings.CutPrefix(n, "^")
	}
	if ok && len(rest) == 1 {
		c := rest[0]
		switch {
		case c >= 'a' && c <= 'z':
			code := c - 'a' + 1
			if !tty && c == 'c' {
				return inputOp{interrupt: true}, nil
			}
			if !tty && c == 'd' {
				return inputOp{eof: true}, nil
			}
			return inputOp{data: []byte{code}}, nil
		case c == '\\':
			return inputOp{data: []byte{0x1c}}, nil
		}
	}
	return inputOp{}, fmt.Errorf("unknown key %q; keys are %s", name, KeyNames)
}

// encodeInput turns text and keys into the steps of one input call. On a
// terminal a newline in text is sent as Enter is (a carriage return), as
// a person typing it would.
func encodeInput(text string, keys []string, tty, appCursor bool) ([]inputOp, int, error) {
	var ops []inputOp
	size := 0
	if text != "" {
		if tty {
			text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\r"), "\n", "\r")
		}
		ops = append(ops, inputOp{data: []byte(text)})
		size += len(text)
	}
	for _, k := range keys {
		op, err := encodeKey(k, tty, appCursor)
		if err != nil {
			return nil, 0, err
		}
		ops = append(ops, op)
		size += len(op.data)
	}
	if size > MaxInputBytes {
		return nil, 0, fmt.Errorf("the input is %d bytes, more than the %d KiB one call may send; write it to a file and have the program read that, or send it in parts", size, MaxInputBytes>>10)
	}
	return ops, size, nil
}

// inputEnd is the process's standard input as the engine holds it: the
// write end of a pipe, or the controlling end of its terminal.
type inputEnd struct {
	mu     sync.Mutex
	f      *os.File
	tty    bool
	closed bool // Ctrl-D closed a pipe, or the process ended
}

// errInputClosed says the input was closed (Ctrl-D on a pipe).
var errInputClosed = errors.New("its input was closed")

// write sends b, waiting at most timeout for the process to take it. It
// returns how much was taken.
func (in *inputEnd) write(b []byte, timeout time.Duration) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return 0, errInputClosed
	}
	_ = in.f.SetWriteDeadline(time.Now().Add(timeout))
	return in.f.Write(b)
}

// close closes the input: the process reads the end of it.
func (in *inputEnd) close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.closed {
		in.closed = true
		if !in.tty {
			in.f.Close() // a terminal's end is closed with the group
		}
	}
}

// answer passes a terminal's answer to a program's question on to it,
// best effort.
func (in *inputEnd) answer(b []byte) { _, _ = in.write(b, answerTimeout) }
