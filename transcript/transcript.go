// Package transcript keeps the conductor's conversations: one JSONL file
// per conversation under the workspace's .indusvx/transcripts/, one line
// per message, appended and fsynced once per turn, so a crash loses at
// most the turn in flight. A conversation is resumed by id or as the
// latest one, and the folder is listed newest first.
//
// Every line is signed with a key of the user's (see [KeyFile]), bound to
// the conversation's id; a line that does not verify is never history,
// and the latest conversation is the one whose signed last line is
// newest, whatever the files' times say. Files are opened through the
// workspace package's funnel, beneath the state folder with no symlink
// followed. A last line cut short by a crash (no newline) is not a line:
// readers pass over it and the next append cuts it off first.
package transcript

import (
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

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/indusagi/induscode/internal/flock"
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
	// Parent (header) links a subagent's conversation to the call of its
	// parent's that ran it.
	Parent *Parent `json:"parent,omitempty"`
	// MAC is the line's signature as read; Append writes it, whatever
	// the caller set.
	MAC string `json:"mac,omitempty"`
}

// Parent is the link from a subagent's conversation to its parent's.
type Parent struct {
	ID        string `json:"id"`          // the parent's transcript id
	ToolUseID string `json:"tool_use_id"` // the parent's call that ran the subagent
	Agent     string `json:"agent"`       // the subagent's profile
}

// Transcript is one conversation's file, open for appending. It is safe
// for concurrent use.
type Transcript struct {
	id   string
	mu   sync.Mutex
	path string
	// locks is the folder of the lock that appends take, so that two
	// processes appending to one conversation (or signing it) take turns.
	locks string
	key   []byte
	// header is the first line, until the first append writes it.
	header *Line
}

// file is a transcript's path in the workspace at dir.
func file(dir, id string) string {
	return filepath.Join(workspace.At(dir).Transcripts(), id+".jsonl")
}

// ValidID reports whether id can name a transcript, so no id can climb
// out of the folder: a UUID in its canonical lowercase form, as [New]
// makes them (version 7, so ids sort by time, and Claude Code's and the
// Agent SDK's session ids are UUIDs), or a ULID, as earlier versions
// made them.
func ValidID(id string) bool {
	if u, err := uuid.Parse(id); err == nil && u.String() == id {
		return true
	}
	_, err := ulid.ParseStrict(id)
	return err == nil
}

// newID is a new conversation's id: a UUIDv7, time-ordered as the ULIDs
// before it were.
func newID() (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("a new conversation id: %w", err)
	}
	return u.String(), nil
}

// New starts a conversation in the workspace at dir; its header is
// written with the first append.
func New(dir, model string) (*Transcript, error) {
	key, err := userKey()
	if err != nil {
		return nil, err
	}
	if err := workspace.MkdirAll(workspace.At(dir).Transcripts(), 0o755); err != nil {
		return nil, fmt.Errorf("transcripts folder: %w", err)
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	return start(dir, model, id, key), nil
}

// start is New with the id given.
func start(dir, model, id string, key []byte) *Transcript {
	t := &Transcript{id: id, key: key, locks: workspace.At(dir).Locks()}
	t.path = file(dir, t.id)
	// The header goes out with the first append: a conversation that
	// never finished a turn leaves no file, and the run's first model
	// call does not wait for a sync.
	t.header = &Line{Kind: Header, ID: t.id, Model: model, Dir: dir, Time: time.Now().UTC()}
	return t
}

// Open reopens the conversation id of the workspace at dir for
// appending and returns its lines. A conversation written before lines
// were signed (no line signed) is signed now: naming it is the user's
// word that it is theirs. One with a line that does not verify is
// refused.
func Open(dir, id string) (*Transcript, []Line, error) {
	if !ValidID(id) {
		return nil, nil, fmt.Errorf("%q is not a transcript id (ids are UUIDs, or 26-character ULIDs from earlier versions; indusr transcripts lists them)", id)
	}
	key, err := userKey()
	if err != nil {
		return nil, nil, err
	}
	t := &Transcript{id: id, path: file(dir, id), key: key, locks: workspace.At(dir).Locks()}
	lines, sig, err := t.read()
	if err != nil {
		return nil, nil, err
	}
	if sig == noneSigned {
		if lines, err = t.adopt(); err != nil {
			return nil, nil, fmt.Errorf("transcript %s was written before lines were signed, and signing it failed: %w", id, err)
		}
	}
	return t, lines, nil
}

// Latest reopens the conversation of the workspace whose last signed line
// is the newest. It reads the first and last line of each file, then the
// chosen one whole; files not signed by the user are not candidates
// (indusr transcripts names them), and a damaged choice is an error, not
// a reason to pick an older one.
func Latest(dir string) (*Transcript, []Line, error) {
	key, err := userKey()
	if err != nil {
		return nil, nil, err
	}
	folder := workspace.At(dir).Transcripts()
	entries, err := workspace.ReadDir(folder)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	var best string
	var bestTime time.Time
	others := 0
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !ValidID(id) {
			continue
		}
		last, child, err := lastSigned(key, id, file(dir, id))
		if err != nil {
			others++
			continue
		}
		if child {
			continue // a subagent's conversation is its parent's part
		}
		if c := last.Compare(bestTime); c > 0 || (c == 0 && id > best) {
			best, bestTime = id, last
		}
	}
	if best == "" {
		msg := fmt.Sprintf("no conversation to continue in %s", folder)
		if others > 0 {
			msg += fmt.Sprintf(" (%d transcript(s) there are not signed by your indusr or are damaged: indusr transcripts lists them, and --resume ID takes an unsigned one of yours)", others)
		}
		return nil, nil, errors.New(msg)
	}
	return Open(dir, best)
}

// ID is the conversation's id.
func (t *Transcript) ID() string { return t.id }

// Path is the conversation's file.
func (t *Transcript) Path() string { return t.path }

// SetParent links a new conversation to its parent's: the header, written
// with the first append, names p. The latest conversation ([Latest])
// is never a linked one.
func (t *Transcript) SetParent(p Parent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.header != nil {
		t.header.Parent = &p
	}
}

// Append signs lines and writes them at the end of the file as one write,
// then fsyncs it: the unit of durability. A last line cut short by a
// crash is cut off first, so the new lines start a line of their own;
// the folder is synced when the file was created, so the conversation's
// name survives a crash too.
func (t *Transcript) Append(lines ...Line) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now().UTC()
	if t.header != nil {
		lines = append([]Line{*t.header}, lines...)
	}
	buf, err := t.encode(lines, now)
	if err != nil {
		return err
	}
	held, err := flock.AcquireTarget(t.locks, t.path, workspace.Files{})
	if err != nil {
		return fmt.Errorf("transcript %s: %w", t.id, err)
	}
	defer held.Release()
	f, err := workspace.OpenFile(t.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("transcript %s: %w", t.id, err)
	}
	err = repairTail(f)
	if err == nil {
		_, err = f.Write(buf)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && t.header != nil {
		err = workspace.SyncDir(filepath.Dir(t.path))
	}
	if err != nil {
		return fmt.Errorf("transcript %s: %w", t.id, err)
	}
	t.header = nil
	return nil
}

// encode signs and encodes lines, each ended by a newline.
func (t *Transcript) encode(lines []Line, now time.Time) ([]byte, error) {
	var buf bytes.Buffer
	for _, l := range lines {
		if l.Time.IsZero() {
			l.Time = now
		}
		l.MAC = ""
		b, err := json.Marshal(l)
		if err != nil {
			return nil, fmt.Errorf("transcript %s: %w", t.id, err)
		}
		buf.Write(sign(t.key, t.id, b))
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// adopt rewrites an unsigned conversation with every line signed, through
// a temporary file renamed over it, and returns its lines. It reads the
// file again under the appends' lock, so a line appended meanwhile is
// kept (and a file signed meanwhile is left alone).
func (t *Transcript) adopt() ([]Line, error) {
	held, err := flock.AcquireTarget(t.locks, t.path, workspace.Files{})
	if err != nil {
		return nil, err
	}
	defer held.Release()
	lines, sig, err := t.read()
	if err != nil || sig != noneSigned {
		return lines, err
	}
	buf, err := t.encode(lines, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	folder := filepath.Dir(t.path)
	f, err := workspace.CreateTemp(folder)
	if err != nil {
		return nil, err
	}
	defer workspace.Remove(f.Name())
	_, err = f.Write(buf)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = workspace.Rename(f.Name(), t.path)
	}
	if err == nil {
		err = workspace.SyncDir(folder)
	}
	return lines, err
}

// Close releases the transcript; it holds no file open between appends.
func (t *Transcript) Close() error { return nil }

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
	// Unsigned says no line is signed: written before indusr signed
	// transcripts, or planted. --continue passes over it; --resume ID
	// signs it and resumes it.
	Unsigned bool `json:"unsigned,omitempty"`
	// Damaged says why the file cannot be resumed ("" when it can): a
	// line that is not a transcript line or whose signature does not
	// verify.
	Damaged string `json:"damaged,omitempty"`
}

// List describes the conversations of the workspace at dir: those that
// can be continued, the most recently written first (by their signed
// last line), then the unsigned ones, then the damaged ones, each with
// why.
func List(dir string) ([]Info, error) {
	key, err := userKey()
	if err != nil {
		return nil, err
	}
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
		if !ok || !ValidID(id) {
			continue
		}
		info := Info{ID: id}
		t := &Transcript{id: id, path: file(dir, id), key: key}
		lines, sig, err := t.read()
		if err != nil {
			info.Damaged = err.Error()
			if fi, err := e.Info(); err == nil {
				info.Updated = fi.ModTime()
			}
			out = append(out, info)
			continue
		}
		info.Unsigned = sig == noneSigned
		for _, l := range lines {
			info.Updated = l.Time
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
	rank := func(i Info) int {
		switch {
		case i.Damaged != "":
			return 2
		case i.Unsigned:
			return 1
		}
		return 0
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := rank(a) - rank(b); c != 0 {
			return c
		}
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
