package rpc

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

// The addon log's limits, as for the logs of MCP servers: a line is cut
// at 4 KiB, the file is rotated to NAME.log.1 past 8 MiB (so an addon
// costs at most twice that on disk), and the last 40 lines stay in
// memory to explain a crash.
const (
	maxLogLine  = 4096
	maxLogFile  = 8 << 20
	maxTailLogs = 40
)

// addonLog keeps what an addon wrote to stderr, its stdout lines that were
// not protocol messages, and the host's notes about it.
type addonLog struct {
	mu   sync.Mutex
	path string
	file *os.File
	size int64
	max  int64
	tail []string
	next int
}

// openLog opens the log of addon id in dir; with dir "" (or a folder that
// cannot be made) it keeps the tail in memory only.
func openLog(dir, id string) *addonLog {
	l := &addonLog{max: maxLogFile}
	if dir == "" || workspace.MkdirAll(dir, 0o755) != nil {
		return l
	}
	l.path = filepath.Join(dir, fileName(id)+".log")
	if l.open() != nil {
		l.path = ""
	}
	return l
}

// fileName makes an addon id safe as a file name: anything but letters,
// digits, '-', '_' and '.' becomes '_', and a leading dot too (no "..").
func fileName(id string) string {
	s := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, id)
	if s == "" || s[0] == '.' {
		s = "_" + s
	}
	return s
}

func (l *addonLog) open() error {
	if fi, err := os.Stat(l.path); err == nil && fi.Size() >= l.max {
		_ = os.Rename(l.path, l.path+".1")
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

func (l *addonLog) printf(format string, args ...any) { l.line("host", fmt.Sprintf(format, args...)) }

func (l *addonLog) line(source, text string) { l.lineCut(source, text, 0) }

// lineCut records the start of a line of which cut more bytes were not
// kept.
func (l *addonLog) lineCut(source, text string, cut int) {
	text = strings.TrimRight(text, "\r\n")
	if len(text) > maxLogLine {
		cut += len(text) - maxLogLine
		text = text[:maxLogLine]
	}
	if cut > 0 {
		text += fmt.Sprintf("… (%d more bytes)", cut)
	}
	entry := source + ": " + text
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.tail) < maxTailLogs {
		l.tail = append(l.tail, entry)
	} else {
		l.tail[l.next] = entry
		l.next = (l.next + 1) % maxTailLogs
	}
	if l.file == nil {
		return
	}
	n, _ := fmt.Fprintf(l.file, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), entry)
	if l.size += int64(n); l.size >= l.max {
		l.file.Close()
		if l.open() != nil {
			l.file = nil
		}
	}
}

// stderrHint is the last stderr lines, for an error message.
func (l *addonLog) stderrHint() string {
	l.mu.Lock()
	ordered := append(append([]string(nil), l.tail[l.next:]...), l.tail[:l.next]...)
	l.mu.Unlock()
	var out []string
	for _, s := range ordered {
		if rest, ok := strings.CutPrefix(s, "stderr: "); ok {
			out = append(out, rest)
		} else if strings.HasPrefix(s, "host: started ") {
			out = out[:0] // only the latest run explains its end
		}
	}
	if len(out) > 3 {
		out = out[len(out)-3:]
	}
	if len(out) == 0 {
		return ""
	}
	return "; its stderr ends: " + strings.Join(out, " | ")
}

func (l *addonLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil {
		l.file.Close()
		l.file = nil
	}
}

// drain logs r line by line until it ends, reading through lines of any
// length (a reader that stopped at a long line would block the addon on
// its next write to stderr).
func (l *addonLog) drain(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	cut := 0
	for {
		chunk, err := br.ReadSlice('\n')
		keep := min(max(maxLogLine-len(line), 0), len(chunk))
		line = append(line, chunk[:keep]...)
		cut += len(chunk) - keep
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(chunk) > 0 || len(line) > 0 {
			if cut > 0 && bytes.HasSuffix(chunk, []byte("\n")) {
				cut--
			}
			l.lineCut("stderr", string(line), cut)
		}
		if err != nil {
			return
		}
		line, cut = line[:0], 0
	}
}
