package conductor

import (
	"fmt"
	"strings"

	"github.com/indusagi/induscode/transcript"
)

// ownBriefing is the briefing of a caller that brings its own system
// prompt ([Options.System]): that text, then the addition.
func ownBriefing(system, appendix string) string {
	b := strings.TrimSpace(system) + "\n"
	if appendix = strings.TrimSpace(appendix); appendix != "" {
		b += "\n" + appendix + "\n"
	}
	return b
}

// fork starts a new transcript holding the conversation of lines, the
// old transcript's.
func fork(dir, model string, lines []transcript.Line) (*transcript.Transcript, error) {
	t, err := transcript.New(dir, model)
	if err != nil {
		return nil, err
	}
	var body []transcript.Line
	for _, l := range lines {
		if l.Kind != transcript.Header {
			body = append(body, l)
		}
	}
	if len(body) > 0 {
		if err := t.Append(body...); err != nil {
			return nil, fmt.Errorf("forking the conversation: %w", err)
		}
	}
	return t, nil
}
