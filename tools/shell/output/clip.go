package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxModelChars is the most command output the model is shown in one
// result (30,000 characters, as in Claude Code's Bash tool): beyond it the
// head and the tail are kept and the middle is replaced by a marker.
const MaxModelChars = 30000

// markerRoom is kept free of output for the "[... N lines omitted ...]"
// marker, so head, marker and tail together stay within MaxModelChars.
const markerRoom = 64

// halfBudget is how much of the head, and of the tail, is kept.
const halfBudget = (MaxModelChars - markerRoom) / 2

// Clip collects the merged output of a bash command with bounded memory:
// all of it while it fits in MaxModelChars, then only the first and last
// halfBudget bytes, with the whole output spilled to a log file.
type Clip struct {
	// OpenLog opens the file the whole output goes to once it outgrows
	// MaxModelChars; nil keeps none.
	OpenLog func() (io.WriteCloser, string, error)

	all     []byte // everything, until it outgrows MaxModelChars
	head    []byte // the first halfBudget bytes, once spilled
	tail    []byte // ring of the last halfBudget bytes, once spilled
	tailAt  int    // next write position in tail
	tailLen int
	total   int64
	lines   int64 // newlines seen

	log     io.WriteCloser
	logPath string
	logErr  error
	logCap  int64 // the log's size cap (0: none)
}

// Write keeps p; it never fails.
func (c *Clip) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if c.tail == nil {
		c.all = append(c.all, p...)
		if len(c.all) > MaxModelChars {
			c.spill()
		}
		return len(p), nil
	}
	if c.log != nil {
		if _, err := c.log.Write(p); err != nil {
			c.logErr = err
			c.log.Close()
			c.log = nil
		}
	}
	c.keepTail(p)
	return len(p), nil
}

// spill switches from keeping everything (now more than MaxModelChars) to
// keeping head and tail, and starts the log file with what came so far.
func (c *Clip) spill() {
	c.head = bytes.Clone(c.all[:halfBudget])
	c.tail = make([]byte, halfBudget)
	c.keepTail(c.all[len(c.head):])
	if c.OpenLog != nil {
		c.log, c.logPath, c.logErr = c.OpenLog()
		c.logCap = CapOf(c.log)
		if c.log != nil {
			if _, err := c.log.Write(c.all); err != nil {
				c.logErr = err
				c.log.Close()
				c.log = nil
			}
		}
	}
	c.all = nil
}

func (c *Clip) keepTail(p []byte) {
	if len(p) >= len(c.tail) {
		copy(c.tail, p[len(p)-len(c.tail):])
		c.tailAt, c.tailLen = 0, len(c.tail)
		return
	}
	n := copy(c.tail[c.tailAt:], p)
	copy(c.tail, p[n:])
	c.tailAt = (c.tailAt + len(p)) % len(c.tail)
	c.tailLen = min(c.tailLen+len(p), len(c.tail))
}

// Close closes the log file, if one was opened.
func (c *Clip) Close() {
	if c.log != nil {
		if err := c.log.Close(); err != nil && c.logErr == nil {
			c.logErr = err
		}
		c.log = nil
	}
}

// Truncated reports whether the model sees less than the whole output.
func (c *Clip) Truncated() bool { return c.tail != nil }

// Text is the output as the model sees it: all of it, or the head up to
// its last full line, a marker, and the tail from its first full line.
func (c *Clip) Text() string {
	if c.tail == nil {
		return strings.ToValidUTF8(string(c.all), "\uFFFD")
	}
	tail := make([]byte, 0, c.tailLen)
	if c.tailLen == len(c.tail) {
		tail = append(tail, c.tail[c.tailAt:]...)
	}
	tail = append(tail, c.tail[:c.tailAt]...)

	head := c.head
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	} else {
		head = trimRuneEnd(head)
	}
	// The tail ring starts mid-line unless a newline sits just before it;
	// show it from its first full line when it has one.
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
		tail = tail[i+1:]
	} else {
		tail = trimRuneStart(tail)
	}
	omittedBytes := c.total - int64(len(head)) - int64(len(tail))
	omittedLines := c.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	marker := fmt.Sprintf("[... %d lines omitted ...]", omittedLines)
	if omittedLines <= 0 {
		marker = fmt.Sprintf("[... %d bytes omitted ...]", omittedBytes)
	}
	var sb strings.Builder
	sb.Grow(len(head) + len(marker) + len(tail) + 2)
	sb.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		sb.WriteByte('\n')
	}
	sb.WriteString(marker)
	sb.WriteByte('\n')
	sb.Write(tail)
	return strings.ToValidUTF8(sb.String(), "\uFFFD")
}

// Note is the line that follows a truncated output: its size and where
// the whole of it is, or why it could not be kept; "" when the model sees
// all of it.
func (c *Clip) Note() string {
	if !c.Truncated() {
		return ""
	}
	switch {
	case c.logPath != "" && c.logErr == nil && CapNote(c.logPath, c.logCap, c.total) != "":
		return fmt.Sprintf("[output was %d bytes in %d lines; %s]\n", c.total, c.lines, CapNote(c.logPath, c.logCap, c.total))
	case c.logPath != "" && c.logErr == nil:
		return fmt.Sprintf("[output was %d bytes in %d lines; the full output is in %s]\n", c.total, c.lines, c.logPath)
	case c.logErr != nil:
		return fmt.Sprintf("[output was %d bytes in %d lines; the full output could not be saved: %v]\n", c.total, c.lines, c.logErr)
	}
	return ""
}

// trimRuneEnd drops a character cut off at the end of b.
func trimRuneEnd(b []byte) []byte {
	for j := len(b) - 1; j >= 0 && j >= len(b)-utf8.UTFMax; j-- {
		if utf8.RuneStart(b[j]) {
			if !utf8.FullRune(b[j:]) {
				return b[:j]
			}
			break
		}
	}
	return b
}

// trimRuneStart drops the rest of a character cut off at the start of b.
func trimRuneStart(b []byte) []byte {
	for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}
