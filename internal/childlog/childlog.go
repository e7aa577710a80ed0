// Package childlog keeps the log of a child process the deck supervises (an
// MCP server of the bridge, a process addon): what the child wrote to
// stderr, the stdout lines that were not protocol messages, and the
// supervisor's own notes about it.
//
// The last lines stay in memory so that an error can say why a child
// failed (a stack trace's head, "command not found"), and everything goes
// to a file when there is a log folder. Every limit is there so that a
// child cannot cost unbounded memory or disk however much it writes: a line
// is cut at [MaxLine] bytes, the memory keeps [TailLines] lines, and the
// file is rotated past [MaxFile] bytes.
package childlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/workspace"
)

const (
	// MaxLine bounds one logged line, so a child writing megabytes without
	// a newline cannot grow the tail without bound. What is cut is counted:
	// the line ends "… (N more bytes)".
	MaxLine = 4096
	// MaxFile bounds a log file: past it the file is renamed to NAME.log.1
	// (replacing the one before) and a new one is started, so a chatty
	// child costs at most twice this on disk. 8 MiB holds days of a normal
	// server's stderr.
	MaxFile = 8 << 20
	// TailLines is how many recent lines stay in memory: enough to show
	// why a child failed to start, small enough to keep for every child.
	TailLines = 40
	// hintLines is how many stderr lines an error message quotes.
	hintLines = 3
)

// Log is the log of one child. Its methods are safe for concurrent use.
type Log struct {
	self string // the source of Printf's lines: who supervises the child

	mu   sync.Mutex
	path string
	file *os.File
	size int64 // bytes in file
	max  int64 // rotate past this; MaxFile unless a test says otherwise
	tail []string
	next int // ring position once tail is full
}

// Open opens the log of the child called name in dir, as
// dir/FileName(name).log, appending to what an earlier run left. Printf's
// lines are recorded as coming from self ("bridge", "host"). With dir ""
// the log is kept in memory only; when the file cannot be opened the
// returned log is also memory-only, and the error says why.
func Open(dir, name, self string) (*Log, error) {
	l := &Log{self: self, max: MaxFile}
	if dir == "" {
		return l, nil
	}
	if err := workspace.MkdirAll(dir, 0o755); err != nil {
		return l, err
	}
	l.path = filepath.Join(dir, FileName(name)+".log")
	if err := l.open(); err != nil {
		l.path = ""
		return l, err
	}
	return l, nil
}

// FileName makes a child's name safe as a file name: anything but letters,
// digits, '-', '_' and '.' becomes '_', and a leading dot gets a '_' before
// it (so neither "..", nor a hidden file, nor "").
func FileName(name string) string {
	s := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, name)
	if s == "" || s[0] == '.' {
		s = "_" + s
	}
	return s
}

// Path is the log file, or "" when the log is in memory only.
func (l *Log) Path() string { return l.path }

// open opens the log file for appending, rotating it first when it is
// already over the limit; l.mu is held (or l is not shared yet).
func (l *Log) open() error {
	if fi, err := workspace.Lstat(l.path); err == nil && fi.Size() >= l.max {
		_ = workspace.Rename(l.path, l.path+".1") // best effort: appending goes on either way
	}
	f, err := workspace.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	l.file, l.size = f, 0
	if fi, err := f.Stat(); err == nil {
		l.size = fi.Size()
	}
	return nil
}

// Printf records one line from the supervisor (the log's self).
func (l *Log) Printf(format string, args ...any) {
	l.Line(l.self, fmt.Sprintf(format, args...))
}

// Line records one line; source says who wrote it ("stderr", "stdout",
// the supervisor).
func (l *Log) Line(source, text string) { l.lineCut(source, text, 0) }

// lineCut records the start of a line of which cut more bytes were not
// kept.
func (l *Log) lineCut(source, text string, cut int) {
	text = strings.TrimRight(text, "\r\n")
	if len(text) > MaxLine {
		cut += len(text) - MaxLine
		text = text[:MaxLine]
	}
	if cut > 0 {
		text += fmt.Sprintf("… (%d more bytes)", cut)
	}
	entry := source + ": " + text
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.tail) < TailLines {
		l.tail = append(l.tail, entry)
	} else {
		l.tail[l.next] = entry
		l.next = (l.next + 1) % TailLines
	}
	if l.file == nil {
		return
	}
	n, _ := fmt.Fprintf(l.file, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), entry)
	if l.size += int64(n); l.size >= l.max {
		l.file.Close()
		if l.open() != nil {
			l.file = nil // the tail in memory still holds the latest lines
		}
	}
}

// ordered is the tail, oldest line first.
func (l *Log) ordered() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append(append([]string(nil), l.tail[l.next:]...), l.tail[:l.next]...)
}

// Lines returns the last n lines in order ("source: text"), only those
// from source unless it is "".
func (l *Log) Lines(n int, source string) []string {
	var out []string
	for _, s := range l.ordered() {
		if source == "" || strings.HasPrefix(s, source+": ") {
			out = append(out, s)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// StderrHint is the last few stderr lines, to end an error message with:
// "; its stderr ends: a | b | c", or "" when there are none. When since is
// not nil, only the lines after the last entry it accepts count (a
// supervisor that restarts its child passes its "started" note, so one run
// is not explained by the stderr of the run before).
func (l *Log) StderrHint(since func(entry string) bool) string {
	var out []string
	for _, s := range l.ordered() {
		if rest, ok := strings.CutPrefix(s, "stderr: "); ok {
			out = append(out, rest)
		} else if since != nil && since(s) {
			out = out[:0]
		}
	}
	if len(out) > hintLines {
		out = out[len(out)-hintLines:]
	}
	if len(out) == 0 {
		return ""
	}
	return "; its stderr ends: " + strings.Join(out, " | ")
}

// Close closes the log file; later lines are kept in memory only.
func (l *Log) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil {
		l.file.Close()
		l.file = nil
	}
}

// Writer returns an io.Writer (for a slog handler, say) that records each
// line written to it as a line from source.
func (l *Log) Writer(source string) io.Writer { return sourceWriter{l, source} }

type sourceWriter struct {
	log    *Log
	source string
}

func (w sourceWriter) Write(p []byte) (int, error) {
	for _, ln := range bytes.Split(bytes.TrimRight(p, "\n"), []byte{'\n'}) {
		w.log.Line(w.source, string(ln))
	}
	return len(p), nil
}

// Drain records r line by line as coming from source until r ends. A
// line of any length is read through, its start kept: a bufio.Scanner
// stops at an overlong line, the pipe is then read no more, and the child
// blocks on its next write.
func (l *Log) Drain(source string, r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	cut := 0
	for {
		chunk, err := br.ReadSlice('\n')
		keep := min(max(MaxLine-len(line), 0), len(chunk))
		line = append(line, chunk[:keep]...)
		cut += len(chunk) - keep
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(chunk) > 0 || len(line) > 0 {
			if cut > 0 && bytes.HasSuffix(chunk, []byte("\n")) {
				cut-- // the newline is not part of the line
			}
			l.lineCut(source, string(line), cut)
		}
		if err != nil {
			return
		}
		line, cut = line[:0], 0
	}
}
