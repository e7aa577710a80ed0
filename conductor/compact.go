package conductor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/transcript"
)

// summaryPrompt asks for the summary the conversation continues from.
const summaryPrompt = "The conversation is about to be compacted. Write a summary that lets you continue the work " +
	"without the messages above: the user's requests, what you found, every file you changed and how, " +
	"commands you ran and their results, decisions made, and what remains to do. Do not call a tool; " +
	"answer with the summary only."

// summaryIntro opens the message the conversation continues from.
const summaryIntro = "This conversation was compacted; here is the summary of it so far:\n\n"

// Compact replaces the conversation with a summary of it (the /compact
// command): compact:before may refuse, compact:build may rewrite the
// summary (its payload's reason is the summary text). During a Run it
// returns an error wrapping [ErrBusy].
func (c *Conductor) Compact(ctx context.Context) error {
	if err := c.acquire("compact"); err != nil {
		return err
	}
	defer c.release()
	err := c.compact(ctx, "requested")
	if errors.Is(err, errNothingToCompact) {
		return nil
	}
	return err
}

// ErrCompactRefused is a compaction a compact:before gate refused.
var ErrCompactRefused = fmt.Errorf("compaction refused")

// errNothingToCompact is a conversation that holds nothing a summary
// could replace: no message, or only the prompt just submitted.
var errNothingToCompact = errors.New("nothing to compact")

// compact asks the model for a summary of the conversation and continues
// from it. The summary request is the conversation's own request (the
// same system prompt and tools, so the prompt cache's prefix still
// holds and the API takes the history's tool blocks) with the question
// in a final user message. A user message that ends the conversation
// without tool results (the prompt just submitted, a message sent with
// send_message) is not summarized: it follows the summary verbatim.
//
// The transcript gets the summary and that message; a failure to write
// them is a *transcriptError. A summary cut off at the output limit is
// refused and the conversation stays as it was. Afterwards no compaction
// is tried again until the model has answered (see compactWait).
func (c *Conductor) compact(ctx context.Context, reason string) error {
	head, tail := fold(c.messages)
	if len(head) == 0 {
		return errNothingToCompact
	}
	c.compactWait = true
	if out := c.dispatch(ctx, addons.CompactBefore, addons.CompactPayload{Reason: reason}); out.Stop != nil {
		c.emit(Notice{Text: fmt.Sprintf("addon %s refused the compaction: %s", out.Stop.Addon, out.Stop.Reason)})
		return fmt.Errorf("%w by addon %s: %s", ErrCompactRefused, out.Stop.Addon, out.Stop.Reason)
	}
	c.mu.Lock()
	client, model := c.client, c.model
	c.mu.Unlock()
	req := provider.Request{Model: model.Name, System: c.brief, Tools: c.Tools(), Messages: withQuestion(head, summaryPrompt),
		MaxTokens: c.opts.MaxTokens}
	if req.MaxTokens == 0 {
		req.MaxTokens = provider.DefaultMaxTokens
	}
	resp, err := client.Stream(ctx, req, nil)
	if err != nil && overflowed(err) && ctx.Err() == nil {
		// The history itself is over the window (tool results came in
		// after the last count): the summary is asked of it with long
		// results shortened.
		req.Messages = withQuestion(shortened(head), summaryPrompt)
		resp, err = client.Stream(ctx, req, nil)
	}
	if err != nil {
		return err
	}
	c.usage, c.cost = c.usage.Add(resp.Usage), c.cost+resp.Cost
	if resp.Stop == provider.StopMaxTokens {
		return fmt.Errorf("the summary was cut off at the output limit (%d tokens); the conversation was kept as it was", req.MaxTokens)
	}
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return fmt.Errorf("the model gave an empty summary")
	}
	if out := c.dispatch(ctx, addons.CompactBuild, addons.CompactPayload{Reason: summary}); out.Payload != nil {
		if cp, ok := out.Payload.(addons.CompactPayload); ok && strings.TrimSpace(cp.Reason) != "" {
			summary = cp.Reason
		}
	}
	text := summaryIntro + summary + c.carriedSkills()
	if c.tr != nil {
		lines := []transcript.Line{{Kind: transcript.Summary, Text: text}}
		model := c.Model().String()
		for i := range tail {
			lines = append(lines, transcript.Line{Kind: transcript.MessageLine, Message: &tail[i], Model: model})
		}
		if err := c.tr.Append(lines...); err != nil {
			return &transcriptError{err}
		}
	}
	msgs := []provider.Message{provider.UserText(text)}
	for _, m := range tail {
		msgs = appendJoined(msgs, m)
	}
	c.messages = msgs
	c.lastSize, c.sizedAt = 0, 0
	c.emit(Compacted{Summary: summary, Before: len(head)})
	if w := c.window(); !c.compactOff && float64(c.promptSize()) >= compactAt*float64(w) {
		// What no summary can shorten (the briefing, the tool
		// definitions, the words kept) fills the window: compacting
		// before every call would only loop.
		c.compactOff = true
		c.emit(Notice{Text: fmt.Sprintf("the conversation is still near the model's context window (%d tokens) after compaction; "+
			"it is not compacted again unless the model refuses a call as too long", w)})
	}
	return nil
}

// fold splits a conversation into what a summary replaces and what
// follows it verbatim: the user's words that end it, after the last tool
// results if the last message holds any.
func fold(msgs []provider.Message) (head, tail []provider.Message) {
	n := len(msgs)
	if n == 0 || msgs[n-1].Role != provider.User {
		return msgs, nil
	}
	last := msgs[n-1]
	k := 0 // the tool results come first in a user message
	for k < len(last.Blocks) && last.Blocks[k].Kind == provider.ToolResultBlock {
		k++
	}
	if k == len(last.Blocks) {
		return msgs, nil
	}
	words := provider.Message{Role: provider.User, Blocks: slices.Clone(last.Blocks[k:])}
	if k == 0 {
		return msgs[:n-1], []provider.Message{words}
	}
	head = slices.Clone(msgs)
	head[n-1] = provider.Message{Role: provider.User, Blocks: slices.Clone(last.Blocks[:k])}
	return head, []provider.Message{words}
}

// summaryResultKeep is how much of a long tool result a summary request
// keeps when the whole history is over the window: its start and end,
// which say what was run and how it ended.
const summaryResultKeep = 2048

// shortened returns msgs with every tool result longer than twice
// summaryResultKeep cut to its start and end.
func shortened(msgs []provider.Message) []provider.Message {
	out := make([]provider.Message, len(msgs))
	for i, m := range msgs {
		copied := false
		for j, b := range m.Blocks {
			if b.Kind != provider.ToolResultBlock || len(b.Text) <= 2*summaryResultKeep {
				continue
			}
			if !copied {
				m.Blocks, copied = slices.Clone(m.Blocks), true
			}
			start, end := runeStart(b.Text, summaryResultKeep), runeStart(b.Text, len(b.Text)-summaryResultKeep)
			b.Text = b.Text[:start] + fmt.Sprintf("\n[... %d bytes of this result left out of the summary request ...]\n", end-start) + b.Text[end:]
			m.Blocks[j] = b
		}
		out[i] = m
	}
	return out
}

// runeStart moves i back to the start of the UTF-8 character it is in.
func runeStart(s string, i int) int {
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// withQuestion returns msgs with question asked in a final user message:
// added to a last user message (tool results come first in it, as the
// APIs want), else as a message of its own.
func withQuestion(msgs []provider.Message, question string) []provider.Message {
	out := append([]provider.Message(nil), msgs...)
	ask := provider.Block{Kind: provider.TextBlock, Text: question}
	if last := len(out) - 1; last >= 0 && out[last].Role == provider.User {
		m := out[last]
		m.Blocks = append(append([]provider.Block(nil), m.Blocks...), ask)
		out[last] = m
		return out
	}
	return append(out, provider.Message{Role: provider.User, Blocks: []provider.Block{ask}})
}

// appendJoined appends m to msgs, joining it to a last message of the
// same role: the APIs want roles to alternate, and a summary followed by
// the prompt it kept are two user messages in the transcript.
func appendJoined(msgs []provider.Message, m provider.Message) []provider.Message {
	if last := len(msgs) - 1; last >= 0 && msgs[last].Role == m.Role {
		j := msgs[last]
		j.Blocks = append(append([]provider.Block(nil), j.Blocks...), m.Blocks...)
		msgs[last] = j
		return msgs
	}
	return append(msgs, m)
}

// bytesPerToken turns the size of text into a token estimate. Code and
// JSON run about 3 to 4 bytes a token in the providers' tokenizers; the
// smaller figure errs towards compacting early rather than overflowing.
const bytesPerToken = 3

// blockOverhead is what a block costs beside its text: its type, ids and
// the framing the API adds (a rough figure; it matters only for many
// small blocks).
const blockOverhead = 12

// estimate is the size in tokens of msgs, estimated from their bytes.
func estimate(msgs []provider.Message) int64 {
	var n int64
	for _, m := range msgs {
		for _, b := range m.Blocks {
			n += int64(len(b.Text)+len(b.Input)+len(b.Name)+len(b.ID)+len(b.ToolUseID)+len(b.Signature))/bytesPerToken + blockOverhead
		}
	}
	return n
}

// promptSize is the size in tokens of the next request: the last call's
// prompt and answer as the provider counted them, plus an estimate of
// what was added since (tool results, a new prompt). With no count (a
// new or just compacted conversation, a transcript without usage) the
// whole request is estimated, briefing and tool definitions included.
func (c *Conductor) promptSize() int64 {
	if c.lastSize > 0 && c.sizedAt <= len(c.messages) {
		return c.lastSize + estimate(c.messages[c.sizedAt:])
	}
	n := int64(len(c.brief))/bytesPerToken + estimate(c.messages)
	if b, err := json.Marshal(c.Tools()); err == nil {
		n += int64(len(b)) / bytesPerToken
	}
	return n
}

// nearWindow reports whether the next request should be compacted first.
func (c *Conductor) nearWindow(ctx context.Context) bool {
	if c.compactWait || c.compactOff {
		return false
	}
	c.learnWindow(ctx)
	return float64(c.promptSize()) >= compactAt*float64(c.window())
}

// window is the model's context window in tokens: the option, else what
// a local server told (see learnWindow), else the catalog's.
func (c *Conductor) window() int64 {
	if c.opts.ContextWindow > 0 {
		return c.opts.ContextWindow
	}
	m := c.Model()
	c.mu.Lock()
	n, ok := c.windows[m]
	c.mu.Unlock()
	if ok {
		return n
	}
	return contextWindowOf(c.opts.Catalog, m)
}

// learnWindow asks a local server, once per model, what window it runs
// the model with (provider.WindowTeller).
func (c *Conductor) learnWindow(ctx context.Context) {
	c.mu.Lock()
	m, client := c.model, c.client
	_, known := c.windows[m]
	c.mu.Unlock()
	if known || c.opts.ContextWindow > 0 || !local(m) {
		return
	}
	if o, ok := c.opts.Catalog.Override(m); ok && o.ContextWindow > 0 {
		return // the user's word wins over the server's
	}
	wt, ok := client.(provider.WindowTeller)
	if !ok {
		return
	}
	n, ok := wt.ContextWindow(ctx, m.Name)
	if !ok {
		n = contextWindowOf(c.opts.Catalog, m)
	}
	c.mu.Lock()
	if c.windows == nil {
		c.windows = map[provider.ModelID]int64{}
	}
	c.windows[m] = n
	c.mu.Unlock()
}

// overflowed reports whether err is the provider refusing a request as
// longer than the model's context window (Anthropic's "prompt is too
// long", OpenAI's context_length_exceeded, Gemini's input token count
// that "exceeds the maximum number of tokens" and the wording of
// compatible servers), or as too large a request (413).
func overflowed(err error) bool {
	var se *provider.StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case 413:
		return true
	case 400:
		if se.ErrorCode == "context_length_exceeded" {
			return true
		}
		msg := strings.ToLower(se.Error())
		for _, s := range []string{"prompt is too long", "context_length_exceeded", "maximum context length",
			"context window", "context length", "too many tokens", "input is too long", "exceeds the maximum number of tokens"} {
			if strings.Contains(msg, s) {
				return true
			}
		}
	}
	return false
}

// resume sets the conversation from a transcript's lines: the messages
// after the last summary (which comes first as a user message, joined
// with a prompt it kept), and the size the provider last counted, so a
// continued conversation near its window compacts before its first call.
func (c *Conductor) resume(lines []transcript.Line) {
	var msgs []provider.Message
	c.lastSize, c.sizedAt = 0, 0
	for _, l := range lines {
		switch l.Kind {
		case transcript.Summary:
			msgs = []provider.Message{provider.UserText(l.Text)}
			c.lastSize, c.sizedAt = 0, 0
		case transcript.MessageLine:
			if l.Message == nil {
				continue
			}
			msgs = appendJoined(msgs, *l.Message)
			if l.Usage != nil {
				c.lastSize, c.sizedAt = l.Usage.PromptTokens()+l.Usage.OutputTokens, len(msgs)
			}
		}
	}
	c.messages = msgs
}
