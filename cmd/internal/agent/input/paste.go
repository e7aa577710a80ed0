package input

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A paste longer than either bound is held aside and shown as one marker
// line, so a pasted log or file does not push the conversation off the
// screen or make every keystroke re-wrap thousands of lines. Ten lines is
// about what the input shows before it scrolls.
const (
	PasteCollapseLines = 10
	PasteCollapseBytes = 2000
)

// pastes holds the text behind each marker of the current prompt.
type pastes struct {
	next int
	text map[int]string
}

var markerRE = regexp.MustCompile(`\[paste #(\d+): \d+ lines?\]`)

// collapse stores text and returns its marker, or returns the text itself
// when it is small enough to show.
func (p *pastes) collapse(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Count(text, "\n") + 1
	if lines <= PasteCollapseLines && len(text) <= PasteCollapseBytes {
		return text
	}
	if p.text == nil {
		p.text = map[int]string{}
	}
	p.next++
	p.text[p.next] = text
	unit := "lines"
	if lines == 1 {
		unit = "line"
	}
	return fmt.Sprintf("[paste #%d: %d %s]", p.next, lines, unit)
}

// expand puts each marker's text back; a marker the user edited is no
// longer a marker and stays as typed.
func (p *pastes) expand(s string) string {
	if len(p.text) == 0 {
		return s
	}
	return markerRE.ReplaceAllStringFunc(s, func(m string) string {
		id, _ := strconv.Atoi(markerRE.FindStringSubmatch(m)[1])
		if t, ok := p.text[id]; ok {
			return t
		}
		return m
	})
}

func (p *pastes) reset() { p.text = nil }
