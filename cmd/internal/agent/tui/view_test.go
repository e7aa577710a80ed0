package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/provider"
)

const answer = "## Plan\n\nThe **greeting** lives in `greet.txt`:\n\n- read it\n- change *world* to *there*\n\n```go\nfmt.Println(\"hello\")\n```"

func started() conductor.Event {
	return conductor.Started{SessionID: "01JTESTSESSION0000000042", Model: "anthropic/claude-sonnet-4-5", Mode: conductor.Default}
}

func text(s string) conductor.Event {
	return conductor.Delta{Delta: provider.Delta{Kind: provider.TextDelta, Text: s}}
}

func said(blocks ...provider.Block) conductor.Event {
	return conductor.AssistantMessage{Message: provider.Message{Role: provider.Assistant, Blocks: blocks},
		Usage: provider.Usage{InputTokens: 12000, OutputTokens: 345}, Cost: 0.0421, Model: "anthropic/claude-sonnet-4-5"}
}

// A prompt's answer streams in, then shows as Markdown, with the context
// and cost in the status line; the same screen reflows at 60 columns.
func TestAnswerStreamsAndRendersMarkdown(t *testing.T) {
	x := newTM(t, 80, 24)
	x.ev(started())
	if cmd := x.submit("what does greet.txt say?"); cmd == nil {
		t.Fatal("a prompt started no run")
	}
	if len(x.f.prompts) != 0 {
		t.Fatal("the run started on the UI's goroutine")
	}
	x.ev(conductor.TurnStarted{N: 1})
	for _, p := range strings.SplitAfter(answer[:60], " ") {
		x.ev(text(p))
	}
	x.now = x.now.Add(3 * time.Second)
	x.golden("streaming")
	x.ev(said(provider.Block{Kind: provider.TextBlock, Text: answer}), conductor.TurnEnded{N: 1})
	x.send(runDoneMsg{res: &conductor.Result{Subtype: conductor.Success, Text: answer}})
	x.golden("answer_80x24")
	x.send(tea.WindowSizeMsg{Width: 60, Height: 24})
	x.golden("answer_60")
}

// NO_COLOR and a dumb terminal leave no colour on screen.
func TestNoColor(t *testing.T) {
	for _, env := range [][]string{{"TERM=xterm-256color", "NO_COLOR=1"}, {"TERM=dumb"}} {
		x := newTM(t, 80, 24, env...)
		x.ev(started())
		x.submit("hi")
		x.ev(conductor.TurnStarted{N: 1}, said(provider.Block{Kind: provider.TextBlock, Text: answer}))
		x.send(runDoneMsg{res: &conductor.Result{Subtype: conductor.Success}})
		if v := x.m.View().Content; strings.Contains(v, "\x1b[") {
			t.Errorf("%v: the screen has escape sequences: %q", env, v)
		}
	}
	x := newTM(t, 80, 24)
	x.submit("hi")
	x.ev(said(provider.Block{Kind: provider.TextBlock, Text: answer}))
	if !strings.Contains(x.m.View().Content, "\x1b[") {
		t.Error("with colour on the screen has no colour")
	}
}
