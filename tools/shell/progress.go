package shell

import (
	"bytes"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/indusagi/induscode/tools/shell/output"
)

// progressEvery is how often a running bash command reports progress: a
// client that shows progress (or resets its timeout on it) hears from a
// long build at least once a second.
const progressEvery = time.Second

// maxProgressLine bounds the output line a progress message carries.
const maxProgressLine = 200

// latest is a sink that passes output on to another and remembers the
// latest line that has text, for progress messages. Unlike the sinks it
// wraps, it is read while the command still writes.
type latest struct {
	next sink

	mu      sync.Mutex
	line    []byte // the latest complete non-blank line
	partial []byte // the unfinished line after it, up to maxProgressLine
}

func (l *latest) write(p []byte) {
	l.next.write(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.partial = appendCapped(l.partial, p)
			return
		}
		l.partial = appendCapped(l.partial, p[:i])
		if len(bytes.TrimSpace(l.partial)) > 0 {
			l.line = append(l.line[:0], l.partial...)
		}
		l.partial = l.partial[:0]
		p = p[i+1:]
	}
}

func (l *latest) close() { l.next.close() }

// text is the latest line with text: the unfinished one if it has any.
func (l *latest) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.line
	if len(bytes.TrimSpace(l.partial)) > 0 {
		b = l.partial
	}
	b = bytes.TrimRight(b, "\r\t ")
	for !utf8.Valid(b) && len(b) > 0 { // cut mid-rune by the cap
		b = b[:len(b)-1]
	}
	return string(b)
}

func appendCapped(dst, p []byte) []byte {
	if room := maxProgressLine - len(dst); room < len(p) {
		p = p[:max(room, 0)]
	}
	return append(dst, p...)
}

// clipSink feeds an output.Clip as a sink.
type clipSink struct{ *output.Clip }

func (s clipSink) write(p []byte) { _, _ = s.Write(p) }
func (s clipSink) close()         { s.Close() }
