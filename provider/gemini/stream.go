package gemini

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/indusagi/induscode/provider"
)

// accumulator assembles the pieces of a stream: text and thought text
// grow in builders while their kind goes on; function calls come whole.
// A signature on a thought part (the API puts them on the part after the
// thinking, but an older model signed the thought) moves to the next part
// that can carry it back.
type accumulator struct {
	blocks  []*building
	model   string
	respID  string
	finish  genai.FinishReason
	usage   genai.GenerateContentResponseUsageMetadata
	pending []byte // a thought's signature waiting for the next part
	calls   int
}

type building struct {
	kind provider.BlockKind
	text strings.Builder
	id   string
	name string
	args json.RawMessage
	sig  []byte
}

func (a *accumulator) add(r *genai.GenerateContentResponse, on func(provider.Delta)) {
	if r.ModelVersion != "" {
		a.model = r.ModelVersion
	}
	if r.ResponseID != "" {
		a.respID = r.ResponseID
	}
	if r.UsageMetadata != nil {
		a.usage = *r.UsageMetadata
	}
	if len(r.Candidates) == 0 || r.Candidates[0] == nil {
		return
	}
	c := r.Candidates[0]
	if c.FinishReason != "" {
		a.finish = c.FinishReason
	}
	if c.Content == nil {
		return
	}
	for _, p := range c.Content.Parts {
		if p == nil {
			continue
		}
		a.part(p, on)
	}
}

func (a *accumulator) part(p *genai.Part, on func(provider.Delta)) {
	sig := p.ThoughtSignature
	switch {
	case p.FunctionCall != nil:
		args, _ := json.Marshal(p.FunctionCall.Args)
		if p.FunctionCall.Args == nil {
			args = []byte(`{}`)
		}
		id := p.FunctionCall.ID
		if id == "" {
			resp := a.respID
			if resp == "" {
				// Without the response's id, calls of two turns must
				// still differ.
				resp = rand.Text()[:12]
			}
			id = fmt.Sprintf("%s%s-%d", madeUpID, resp, a.calls)
		}
		a.calls++
		b := &building{kind: provider.ToolUseBlock, id: id, name: p.FunctionCall.Name, args: args, sig: a.take(sig)}
		a.blocks = append(a.blocks, b)
		if on != nil {
			on(provider.Delta{Kind: provider.ToolUseStart, Index: len(a.blocks) - 1, Name: b.name})
		}
	case p.Thought:
		if len(sig) > 0 {
			a.pending = sig
		}
		b := a.open(provider.ThinkingBlock)
		b.text.WriteString(p.Text)
		if on != nil && p.Text != "" {
			on(provider.Delta{Kind: provider.ThinkingDelta, Index: len(a.blocks) - 1, Text: p.Text})
		}
	default:
		if p.Text == "" && len(sig) == 0 && len(a.pending) == 0 {
			return
		}
		b := a.open(provider.TextBlock)
		b.text.WriteString(p.Text)
		if s := a.take(sig); len(s) > 0 {
			b.sig = s
		}
		if on != nil && p.Text != "" {
			on(provider.Delta{Kind: provider.TextDelta, Index: len(a.blocks) - 1, Text: p.Text})
		}
	}
}

// take returns sig, or the signature a thought left waiting.
func (a *accumulator) take(sig []byte) []byte {
	if len(sig) == 0 {
		sig = a.pending
	}
	a.pending = nil
	return sig
}

// open returns the last block when it is of kind (text goes on across
// pieces) and not yet signed, else a new one.
func (a *accumulator) open(kind provider.BlockKind) *building {
	if n := len(a.blocks); n > 0 && a.blocks[n-1].kind == kind && a.blocks[n-1].sig == nil {
		return a.blocks[n-1]
	}
	b := &building{kind: kind}
	a.blocks = append(a.blocks, b)
	return b
}

func (a *accumulator) response() *provider.Response {
	r := &provider.Response{Model: a.model, ID: a.respID, Message: provider.Message{Role: provider.Assistant}}
	for _, b := range a.blocks {
		out := provider.Block{Kind: b.kind, Text: b.text.String()}
		if len(b.sig) > 0 {
			out.Signature = base64.StdEncoding.EncodeToString(b.sig)
		}
		if b.kind == provider.ToolUseBlock {
			out.Text, out.ID, out.Name, out.Input = "", b.id, b.name, provider.ToolInput(b.args)
		}
		r.Message.Blocks = append(r.Message.Blocks, out)
	}
	switch a.finish {
	case genai.FinishReasonStop:
		r.Stop = provider.StopEndTurn
	case genai.FinishReasonMaxTokens:
		r.Stop = provider.StopMaxTokens
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII:
		r.Stop = provider.StopRefusal
	default:
		r.Stop = provider.StopOther
	}
	if a.calls > 0 && r.Stop != provider.StopMaxTokens {
		r.Stop = provider.StopToolUse // Gemini says STOP after calls
	}
	cached := int64(a.usage.CachedContentTokenCount)
	r.Usage = provider.Usage{
		InputTokens: int64(a.usage.PromptTokenCount) - cached,
		// Thinking is billed as output.
		OutputTokens:    int64(a.usage.CandidatesTokenCount) + int64(a.usage.ThoughtsTokenCount),
		CacheReadTokens: cached,
	}
	return r
}
