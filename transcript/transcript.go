// Package transcript keeps the conductor's conversations: one JSONL file
// per conversation under the workspace's .indusvx/transcripts/, one line
// per message, appended and fsynced once per turn, so a crash loses at
// most the turn in flight. A conversation is resumed by id or as the
// latest one, and the folder is listed newest first.
//
// Files are opened through the workspace package's funnel, beneath the
// state folder with no symlink followed, so a repository cannot point a
// transcript write elsewhere. A last line cut short by a crash is
// ignored on reading.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/workspace"
)

// Kind is what a line holds.
type Kind string

// The line kinds.
const (
	// Header is the first line: the conversation's id, start and model.
	Header Kind = "header"
	// MessageLine is one message of the conversation.
	MessageLine Kind = "message"
	// Summary replaces everything before it: the conversation was
	// compacted, and continues from Text.
	Summary Kind = "summary"
)

// Line is one line of a transcript.
type Line struct {
	Kind    Kind              `json:"kind"`
	Time    time.Time         `json:"time"`
	ID      string            `json:"id,omitempty"`    // header
	Model   string            `json:"model,omitempty"` // header; a message's model
	Dir     string            `json:"cwd,omitempty"`   // header
	Message *provider.Message `json:"message,omitempty"`
	Usage   *provider.Usage   `json:"usage,omitempty"`
	Cost    float64           `json:"cost_usd,omitempty"`
	Text    string            `json:"text,omitempty"` // summary
}

// Transcript is one conversation's file, open for appending. It is safe
// for concurrent use.
type Transcript struct {
	id   string
	mu   sync.Mutex
	path string
	// header is the first line, until the first append writes it.
	header *Line
}

// file is a transcript's path in the workspace at dir.
func file(dir, id string) string {
	return filepath.Join(workspace.At(dir).Transcripts(), id+".jsonl")
}

// ValidID reports whether id can name a transcript: a ULID, as [New]
// makes them, so no id can climb out of the folder.
func ValidID(id string) bool {
	_, err := ulid.ParseStrict(id)
	return err == nil
}

// New starts a conversation in the workspace at dir and writes its header.
func New(dir, model string) (*Transcript, error) {
	if err := workspace.MkdirAll(workspace.At(dir).Transcripts(), 0o755); err != nil {
		return nil, fmt.Errorf("transcripts folder: %w", err)
	}
	t := &Transcript{id: ulid.Make().String()}
	t.path = file(dir, t.id)
	// The header goes out with the first append: a conversation that
	// never finished a turn leaves no file, and the run's first model
	// call does not wait for a sync.
	t.header = &Line{Kind: Header, ID: t.id, Model: model, Dir: dir, Time: time.Now().UTC()}
	return t, nil
}

// Open reopens the conversation id of the workspace at dir for
// appending and returns its lines.
func Open(dir, id string) (*Transcript, []Line, error) {
	if !ValidID(id) {
		return nil, nil, fmt.Errorf("%q is not a transcript id (ids are 26-character ULIDs; indusr transcripts lists them)", id)
	}
	t := &Transcript{id: id, path: file(dir, id)}
	lines, err := t.read()
	if err != nil {
		return nil, nil, err
	}
	return t, lines, nil
}

// Latest reopens the most recently written conversation of the workspace.
func Latest(dir string) (*Transcript, []Line, error) {
	infos, err := List(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(infos) == 0 {
		return nil, nil, fmt.Errorf("no conversation to continue in %s", workspace.At(dir).Transcripts())
	}
	return Open(dir, infos[0].ID)
}

// ID is the conversation's id.
func (t *Transcript) ID() string { return t.id }

// Append writes lines at the end of the file as one write, then fsyncs
// it: the unit of durability.
func (t *Transcript) Append(lines ...Line) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var buf bytes.Buffer
	now := time.Now().UTC()
	if t.header != nil {
		lines = append([]Line{*t.header}, lines...)
	}
	for _, l := range lines {
		if l.Time.IsZero() {
			l.Time = now
		}
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	f, err := workspace.OpenFile(t.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("transcript %s: %w", t.id, err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("transcript %s: %w", t.id, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("transcript %s: %w", t.id, err)
	}
	t.header = nil
	return f.Close()
}

// Close releases the transcript; it holds no file open between appends.
func (t *Transcript) Close() error { return nil }

func (t *Transcript) read() ([]Line, error) {
	f, err := workspace.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no conversation %s in this workspace (indusr transcripts lists them)", t.id)
	}
	if err != nil {
		return nil, fmt.Errorf("transcript %s: %w", t.id, err)
	}
	defer f.Close()
	return readLines(f.Name(), bufio.NewReader(f))
}

// maxLine bounds one line: a message with a large tool result.
const maxLine = 64 << 20

func readLines(name string, r *bufio.Reader) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 0
	var bad error
	for sc.Scan() {
		n++
		if bad != nil {
			// A bad line followed by good ones is damage, not a crash.
			return nil, bad
		}
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			bad = fmt.Errorf("%s line %d is not a transcript line (%v); the file is damaged", name, n, err)
			continue
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// Messages returns the conversation the lines hold: the messages after
// the last summary, which itself comes first as a user message.
func Messages(lines []Line) []provider.Message {
	var out []provider.Message
	for _, l := range lines {
		switch l.Kind {
		case Summary:
			out = []provider.Message{provider.UserText(l.Text)}
		case MessageLine:
			if l.Message != nil {
				out = append(out, *l.Message)
			}
		}
	}
	return out
}

// Info describes a conversation for a listing.
type Info struct {
	ID       string    `json:"id"`
	Model    string    `json:"model,omitempty"`
	Started  time.Time `json:"started"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"`
	// First is the start of the first user text, for a listing.
	First string `json:"first,omitempty"`
}

// List describes the conversations of the workspace at dir, the most
// recently written first.
func List(dir string) ([]Info, error) {
	entries, err := workspace.ReadDir(workspace.At(dir).Transcripts())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !ValidID(id) || !e.Type().IsRegular() {
			continue
		}
		t := &Transcript{id: id, path: file(dir, id)}
		lines, err := t.read()
		if err != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		info := Info{ID: id, Updated: fi.ModTime()}
		for _, l := range lines {
			switch l.Kind {
			case Header:
				info.Model, info.Started = l.Model, l.Time
			case MessageLine:
				info.Messages++
				if info.First == "" && l.Message != nil && l.Message.Role == provider.User {
					info.First = firstLine(l.Message.Text())
				}
			}
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return s
}
