package tui

import (
	"time"

	"github.com/indusagi/induscode/provider"
)

// replay shows the messages of a resumed conversation (--resume,
// --continue, /resume) as they would have shown live: the user's
// prompts, the answers, each tool call with its result, folded.
func (c *conversation) replay(msgs []provider.Message) {
	var t time.Time // no times: the calls' durations are not kept
	for _, m := range msgs {
		switch m.Role {
		case provider.Assistant:
			c.turnFrom = len(c.entries)
			c.message(m, nil, t)
		case provider.User:
			var results bool
			for _, b := range m.Blocks {
				switch b.Kind {
				case provider.TextBlock:
					if b.Text != "" {
						c.add(&entry{kind: userEntry, text: b.Text})
					}
				case provider.ToolResultBlock:
					results = true
				}
			}
			if results {
				c.results(m, t)
			}
		}
	}
	for _, e := range c.entries {
		if e.kind == toolEntry {
			e.replayed = true
			if e.state == toolRunning { // a call whose result was never saved
				e.state, e.text = toolFailed, "no result was saved"
			}
		}
	}
	c.turnFrom = len(c.entries)
}
