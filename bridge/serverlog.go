package bridge

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/workspace"
)

// maxTailLines is how many recent log lines a server keeps in memory: enough
// to show why a server failed to start (a stack trace's head, "command not
// found") in its status, small enough to keep for every server.
const maxTailLines = 40

// maxLogLine bounds one logged line, so a server writing megabytes without a
// newline cannot grow the tail without bound.
const maxLogLine = 4096

// maxLogFile bounds a server's log file: past it the file is renamed to
// NAME.log.1 (replacing the one before) and a new one is started, so a
// chatty server costs at most twice this on disk. 8 MiB holds days of a
// normal server's stderr.
const maxLogFile = 8 << 20

// serverLog keeps what a server wrote to stderr, the stdout lines that were
// not JSON-RPC and the bridge's own notes: the last lines in memory, and
// everything in a file when the fleet has a log directory.
type serverLog struct {
	mu   sync.Mutex
	file *os.File
	path string
	tail []string
	next int   // ring position once tail is full
	size int64 // bytes in file
	max  int64 // rotate past this; maxLogFile unless a test says otherwise
}

func newServerLog(dir, server string) (*serverLog, error) {
	l := &serverLog{max: maxLogFile}
	if dir == "" {
		return l, nil
	}
	if err := workspace.MkdirAll(dir, 0o755); err != nil {
		return l, err
	}
	l.path = filepath.Join(dir, sanitize(server)+".log")
	if err := l.open(); err != nil {
		l.path = ""
		return l, err
	}
	return l, nil
}

// open opens the log file for appending, rotating it first when it is
// already over the limit; l.mu is held (or l is not shared yet).
func (l *serverLog) open() error {
	if fi, err := os.Stat(l.path); err == nil && fi.Size() >= l.max {
		os.Rename(l.path, l.path+".1") // best effort: appending goes on either way
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	l.file, l.size = f, 0
	if fi, err := f.Stat(); err == nil {
		l.size = fi.Size()
	}
	return nil
}

// printf records one line from the bridge.
func (l *serverLog) printf(format string, args ...any) {
	l.line("bridge", fmt.Sprintf(format, args...))
}

// line records one line; source says who wrote it (stderr, stdout, bridge).
func (l *serverLog) line(source, text string) { l.lineCut(source, text, 0) }

// lineCut records the start of a line of which cut more bytes were not
// kept.
func (l *serverLog) lineCut(source, text string, cut int) {
	text = strings.TrimRight(text, "\r\n")
	if len(text) > maxLogLine {
		cut += len(text) - maxLogLine
		text = text[:maxLogLine]
	}
	if cut > 0 {
		text += fmt.Sprintf("… (%d more bytes)", cut)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	entry := source + ": " + text
	if len(l.tail) < maxTailLines {
		l.tail = append(l.tail, entry)
	} else {
		l.tail[l.next] = entry
		l.next = (l.next + 1) % maxTailLines
	}
	if l.file != nil {
		n, _ := fmt.Fprintf(l.file, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), entry)
		if l.size += int64(n); l.size >= l.max {
			l.file.Close()
			if l.open() != nil {
				l.file = nil // the tail in memory still holds the latest lines
			}
		}
	}
}

// lines returns the last n lines in order, optionally only from source.
func (l *serverLog) lines(n int, source string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ordered := append(append([]string(nil), l.tail[l.next:]...), l.tail[:l.next]...)
	var out []string
	for _, s := range ordered {
		if source == "" || strings.HasPrefix(s, source+": ") {
			out = append(out, s)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// stderrHint is the last few stderr lines, for an error message.
func (l *serverLog) stderrHint() string {
	ls := l.lines(3, "stderr")
	if len(ls) == 0 {
		return ""
	}
	for i, s := range ls {
		ls[i] = strings.TrimPrefix(s, "stderr: ")
	}
	return "; its stderr ends: " + strings.Join(ls, " | ")
}

func (l *serverLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil {
		l.file.Close()
		l.file = nil
	}
}

// Write lets the log be an io.Writer for the SDK's slog handler; each line
// becomes one entry.
func (l *serverLog) Write(p []byte) (int, error) {
	for _, ln := range bytes.Split(bytes.TrimRight(p, "\n"), []byte{'\n'}) {
		l.line("sdk", string(ln))
	}
	return len(p), nil
}
