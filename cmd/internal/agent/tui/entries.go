package tui

import (
	"encoding/json"
	"time"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/provider"
)

type entryKind uint8

const (
	userEntry entryKind = iota
	textEntry
	thinkingEntry
	toolEntry
	noticeEntry
	errorEntry
)

type toolState uint8

const (
	toolPreparing toolState = iota // the model is still writing the call
	toolRunning
	toolDone
	toolFailed
	toolRefused
)

// entry is one part of the conversation on screen.
type entry struct {
	kind      entryKind
	text      string // the text; a tool's result
	streaming bool   // still growing
	queued    bool   // a prompt sent during a run

	// tool calls
	id, name string
	input    json.RawMessage
	state    toolState
	start    time.Time
	took     time.Duration
	live     string    // a running command's latest output line
	replayed bool      // shown from a resumed conversation: no duration
	before   fileState // the file of a write or edit before the call
	diff     string    // the unified diff of a write or edit

	lines []string // rendered at width w, expanded ex
	w     int
	ex    bool
	// md is the Markdown of a streaming text as last rendered, of its
	// first mdLen bytes at mdAt (see streamedMarkdown).
	md    string
	mdLen int
	mdAt  time.Time
}

// conversation is the entries and their rendering.
type conversation struct {
	s        *state
	entries  []*entry
	tools    map[string]*entry
	turnFrom int // the first entry of the message being streamed
	expanded bool
	scroll   int // lines scrolled up from the bottom
	// lines is every entry's lines, joined; nil after a change.
	lines []string
}

func (c *conversation) add(e *entry) {
	c.entries = append(c.entries, e)
	c.lines = nil
	c.scroll = 0
}

// changed marks e to be rendered again.
func (c *conversation) changed(e *entry) {
	e.lines = nil
	c.lines = nil
}

func (c *conversation) reflow() {
	for _, e := range c.entries {
		e.lines = nil
	}
	c.lines = nil
}

func (c *conversation) toggleExpanded() {
	c.expanded = !c.expanded
	c.reflow()
}

func (c *conversation) scrollBy(n int) {
	c.scroll = max(c.scroll+n, 0)
}

func (c *conversation) last() *entry {
	if len(c.entries) == 0 {
		return nil
	}
	return c.entries[len(c.entries)-1]
}

// endStreaming closes entries left growing by a run that ended early.
func (c *conversation) endStreaming() {
	for _, e := range c.entries[c.turnFrom:] {
		if e.streaming {
			e.streaming = false
			c.changed(e)
		}
		if e.kind == toolEntry && (e.state == toolRunning || e.state == toolPreparing) {
			e.state = toolFailed
			e.text = "interrupted"
			c.changed(e)
		}
	}
	c.turnFrom = len(c.entries)
}

// progress shows the latest output line of the running command.
func (c *conversation) progress(text string) {
	for i := len(c.entries) - 1; i >= c.turnFrom && i >= 0; i-- {
		if e := c.entries[i]; e.kind == toolEntry && e.state == toolRunning {
			e.live = text
			c.changed(e)
			return
		}
	}
}

func (s *state) onEvent(msg eventMsg) {
	c := &s.conv
	switch e := msg.e.(type) {
	case conductor.Started:
		s.session, s.model, s.mode = e.SessionID, e.Model, e.Mode
		s.skills = e.Skills
		s.in.SetCommands(s.commandList())
	case conductor.TurnStarted:
		c.turnFrom = len(c.entries)
	case conductor.Delta:
		c.delta(e.Delta)
	case conductor.AssistantMessage:
		c.message(e.Message, msg.before, s.cfg.Now())
		s.tokens = e.Usage.PromptTokens() + e.Usage.OutputTokens
		s.cost += e.Cost
		if e.Model != "" {
			s.model = e.Model
		}
		s.window = s.b.ContextWindow() // a local server may have told it since
	case conductor.ToolResults:
		c.results(e.Message, s.cfg.Now())
	case conductor.TurnEnded:
		c.turnFrom = len(c.entries)
	case conductor.Compacted:
		c.add(&entry{kind: noticeEntry, text: "The conversation was compacted: " + plural(e.Before, "message") + " replaced by a summary."})
	case conductor.Notice:
		c.add(&entry{kind: noticeEntry, text: e.Text})
	}
}

// delta grows the streamed message.
func (c *conversation) delta(d provider.Delta) {
	last := c.last()
	switch d.Kind {
	case provider.TextDelta, provider.ThinkingDelta:
		kind := textEntry
		if d.Kind == provider.ThinkingDelta {
			kind = thinkingEntry
		}
		if last != nil && last.streaming && last.kind == kind && len(c.entries) > c.turnFrom {
			last.text += d.Text
			c.changed(last)
			return
		}
		c.add(&entry{kind: kind, text: d.Text, streaming: true})
	case provider.ToolUseStart:
		if last != nil && last.streaming {
			last.streaming = false
			c.changed(last)
		}
		c.add(&entry{kind: toolEntry, name: d.Name, state: toolPreparing, streaming: true})
	}
}

// message replaces what streamed with the whole message: the streamed
// pieces are a preview, the message is what the model said.
func (c *conversation) message(m provider.Message, before map[string]fileState, now time.Time) {
	c.entries = c.entries[:min(c.turnFrom, len(c.entries))]
	c.lines = nil
	if c.tools == nil {
		c.tools = map[string]*entry{}
	}
	for _, b := range m.Blocks {
		switch b.Kind {
		case provider.TextBlock:
			if b.Text != "" {
				c.add(&entry{kind: textEntry, text: b.Text})
			}
		case provider.ThinkingBlock:
			if b.Text != "" {
				c.add(&entry{kind: thinkingEntry, text: b.Text})
			}
		case provider.ToolUseBlock:
			e := &entry{kind: toolEntry, id: b.ID, name: b.Name, input: b.Input, state: toolRunning, start: now}
			if st, ok := before[b.ID]; ok {
				e.before = st
			}
			c.tools[b.ID] = e
			c.add(e)
		}
	}
}

// results closes the tool entries with their results.
func (c *conversation) results(m provider.Message, now time.Time) {
	for _, b := range m.Blocks {
		e := c.tools[b.ToolUseID]
		if e == nil {
			continue
		}
		delete(c.tools, b.ToolUseID)
		e.text, e.took, e.live = b.Text, now.Sub(e.start), ""
		switch {
		case b.Failure == toolrun.Refused:
			e.state = toolRefused
		case b.IsError:
			e.state = toolFailed
		default:
			e.state = toolDone
			if e.before.ok {
				e.diff = fileDiff(e.before, readState(c.s.b.Dir(), e.before.path))
			}
		}
		c.changed(e)
	}
}
