package tui

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/indusagi/induscode/conductor"
)

// maxDiffFile bounds the file a diff is shown for: the copy taken before
// a write or edit and the one read after are held in memory, and a diff
// of a larger file would not be read on a screen anyway.
const maxDiffFile = 512 << 10

// bridge carries the conductor's callbacks, which come on the goroutine
// of a run, to the program as messages.
type bridge struct {
	mu   sync.Mutex
	send func(tea.Msg)
	dir  string
}

func (b *bridge) setSend(f func(tea.Msg)) {
	b.mu.Lock()
	b.send = f
	b.mu.Unlock()
}

func (b *bridge) post(m tea.Msg) {
	b.mu.Lock()
	f := b.send
	b.mu.Unlock()
	if f != nil {
		f(m)
	}
}

// eventMsg is an event of the conductor. before holds, for a message's
// write and edit calls, the content their files had before the calls
// ran (read here, on the run's goroutine, before the tools start), by
// tool use id; a file that did not exist is "".
type eventMsg struct {
	e      conductor.Event
	before map[string]fileState
}

type fileState struct {
	path   string // as the call named it
	text   string
	exists bool
	ok     bool // read (not too large, not a directory)
}

func (b *bridge) event(e conductor.Event) {
	m := eventMsg{e: e}
	if am, ok := e.(conductor.AssistantMessage); ok {
		for _, u := range am.Message.ToolUses() {
			if p := changedPath(u.Name, u.Input); p != "" {
				if m.before == nil {
					m.before = map[string]fileState{}
				}
				m.before[u.ID] = readState(b.dir, p)
			}
		}
	}
	b.post(m)
}

// askMsg is a question of the conductor; the answer goes on reply.
type askMsg struct {
	q     conductor.Question
	reply chan conductor.Answer
}

func (b *bridge) ask(ctx context.Context, q conductor.Question) conductor.Answer {
	reply := make(chan conductor.Answer, 1)
	b.post(askMsg{q: q, reply: reply})
	select {
	case a := <-reply:
		return a
	case <-ctx.Done():
		return conductor.Answer{Reason: "the user interrupted the turn"}
	}
}

// changedPath is the file a write or edit call names, or "".
func changedPath(name string, input json.RawMessage) string {
	switch name {
	case "write", "edit":
	default:
		return ""
	}
	var in struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	return in.Path
}

// readState reads a file for a diff: regular files within maxDiffFile.
func readState(dir, p string) fileState {
	s := fileState{path: p}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(dir, p)
	}
	// Lstat first: a link or a named pipe planted at the path is not
	// followed or opened (opening a pipe would block the run).
	fi, err := os.Lstat(full)
	if err != nil {
		s.ok = os.IsNotExist(err)
		return s
	}
	s.exists = true
	if !fi.Mode().IsRegular() || fi.Size() > maxDiffFile {
		return s
	}
	f, err := os.Open(full)
	if err != nil {
		return s
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDiffFile+1))
	if err != nil || len(data) > maxDiffFile {
		return s
	}
	s.text, s.ok = string(data), true
	return s
}
