package conductor

import (
	"context"
	"fmt"
	"strings"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/transcript"
)

// summaryPrompt asks for the summary the conversation continues from.
const summaryPrompt = "The conversation is about to be compacted. Write a summary that lets you continue the work " +
	"without the messages above: the user's requests, what you found, every file you changed and how, " +
	"commands you ran and their results, decisions made, and what remains to do. Answer with the summary only."

// Compact replaces the conversation with a summary of it (the /compact
// command): compact:before may refuse, compact:build may rewrite the
// summary (its payload's reason is the summary text).
func (c *Conductor) Compact(ctx context.Context) error {
	return c.compact(ctx, "requested")
}

// ErrCompactRefused is a compaction a compact:before gate refused.
var ErrCompactRefused = fmt.Errorf("compaction refused")

func (c *Conductor) compact(ctx context.Context, reason string) error {
	if len(c.messages) == 0 {
		return nil
	}
	if out := c.dispatch(ctx, addons.CompactBefore, addons.CompactPayload{Reason: reason}); out.Stop != nil {
		c.lastSize = 0 // ask again only after the next call
		c.emit(Notice{Text: fmt.Sprintf("addon %s refused the compaction: %s", out.Stop.Addon, out.Stop.Reason)})
		return fmt.Errorf("%w by addon %s: %s", ErrCompactRefused, out.Stop.Addon, out.Stop.Reason)
	}
	msgs := append([]provider.Message(nil), c.messages...)
	ask := provider.Block{Kind: provider.TextBlock, Text: summaryPrompt}
	if last := len(msgs) - 1; msgs[last].Role == provider.User {
		m := msgs[last]
		m.Blocks = append(append([]provider.Block(nil), m.Blocks...), ask)
		msgs[last] = m
	} else {
		msgs = append(msgs, provider.Message{Role: provider.User, Blocks: []provider.Block{ask}})
	}
	c.mu.Lock()
	client, model := c.client, c.model
	c.mu.Unlock()
	resp, err := client.Stream(ctx, provider.Request{Model: model.Name, System: c.brief, Messages: msgs, MaxTokens: c.opts.MaxTokens}, nil)
	if err != nil {
		return err
	}
	c.usage, c.cost = c.usage.Add(resp.Usage), c.cost+resp.Cost
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return fmt.Errorf("the model gave an empty summary")
	}
	if out := c.dispatch(ctx, addons.CompactBuild, addons.CompactPayload{Reason: summary}); out.Payload != nil {
		if cp, ok := out.Payload.(addons.CompactPayload); ok && strings.TrimSpace(cp.Reason) != "" {
			summary = cp.Reason
		}
	}
	text := "This conversation was compacted; here is the summary of it so far:\n\n" + summary
	if c.tr != nil {
		if err := c.tr.Append(transcript.Line{Kind: transcript.Summary, Text: text}); err != nil {
			return &transcriptError{err}
		}
	}
	before := len(c.messages)
	c.messages = []provider.Message{provider.UserText(text)}
	c.lastSize = 0
	c.emit(Compacted{Summary: summary, Before: before})
	return nil
}
