package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/indusagi/induscode/internal/flock"
	"github.com/indusagi/induscode/workspace"
)

// The history file's bounds. A shell keeps 500 to 1,000 commands; prompts
// are longer than commands, so the entry count is the same order and a
// single prompt over MaxHistoryEntry (a pasted log, say) is not kept at
// all rather than kept in part: a recalled prompt is either what was sent
// or absent. MaxHistoryFile caps what a start reads, whatever wrote it.
const (
	MaxHistoryEntries = 500
	MaxHistoryEntry   = 16 << 10
	MaxHistoryFile    = 2 << 20
)

// History is the prompts sent in one workspace, oldest first, kept in
// <workspace>/.indusvx/history.jsonl (one JSON string a line). Two
// terminals in one workspace may add at once: Add reads the file again
// under a lock and replaces it whole, so neither loses the other's
// prompts and a reader never sees a half-written file.
type History struct {
	path    string
	locks   string
	entries []string
}

// OpenHistory reads the history of the workspace at root. A missing file
// is an empty history; lines that are not JSON strings are passed over (a
// hand edit should not cost the rest). An empty root is a history kept in
// memory only.
func OpenHistory(root string) (*History, error) {
	if root == "" {
		return &History{}, nil
	}
	l := workspace.At(root)
	h := &History{path: l.History(), locks: l.Locks()}
	entries, err := readHistory(h.path)
	if err != nil {
		return h, err
	}
	h.entries = entries
	return h, nil
}

// Entries returns the prompts, oldest first. The slice is the caller's.
func (h *History) Entries() []string { return append([]string(nil), h.entries...) }

// Len is the number of prompts.
func (h *History) Len() int { return len(h.entries) }

// At is the i-th prompt, oldest first.
func (h *History) At(i int) string { return h.entries[i] }

// Add records a sent prompt: blank prompts, a repeat of the newest and
// prompts over MaxHistoryEntry are not recorded; the oldest go once there
// are more than MaxHistoryEntries. The prompt is in memory even when the
// file cannot be written; the error says why it is not on disk.
func (h *History) Add(prompt string) error {
	if len(bytes.TrimSpace([]byte(prompt))) == 0 || len(prompt) > MaxHistoryEntry {
		return nil
	}
	h.entries = appendEntry(h.entries, prompt)
	if h.path == "" {
		return nil
	}
	if err := workspace.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	held, err := flock.AcquireTarget(h.locks, h.path, workspace.Files{})
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer held.Release()
	// Another terminal may have added since this one read: start from the
	// file, not from memory, and add this prompt to it.
	onDisk, err := readHistory(h.path)
	if err != nil {
		return err
	}
	onDisk = appendEntry(onDisk, prompt)
	var buf bytes.Buffer
	for _, e := range onDisk {
		line, _ := json.Marshal(e) // a string always marshals
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := workspace.WriteFile(h.path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	h.entries = onDisk
	return nil
}

// appendEntry adds e unless it repeats the newest, then drops the oldest
// past the entry bound and past the file bound.
func appendEntry(entries []string, e string) []string {
	if n := len(entries); n > 0 && entries[n-1] == e {
		return entries
	}
	entries = append(entries, e)
	if over := len(entries) - MaxHistoryEntries; over > 0 {
		entries = append([]string(nil), entries[over:]...)
	}
	size := 0
	for i := len(entries) - 1; i >= 0; i-- {
		size += len(entries[i]) + 8 // quotes, newline and some escapes
		if size > MaxHistoryFile {
			return append([]string(nil), entries[i+1:]...)
		}
	}
	return entries
}

// readHistory reads at most MaxHistoryFile bytes of the file; a file cut
// there loses its last, partial line.
func readHistory(path string) ([]string, error) {
	f, err := workspace.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxHistoryFile))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var entries []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxHistoryFile)
	for sc.Scan() {
		var e string
		if json.Unmarshal(sc.Bytes(), &e) == nil && e != "" && len(e) <= MaxHistoryEntry {
			entries = append(entries, e)
		}
	}
	if len(entries) > MaxHistoryEntries {
		entries = entries[len(entries)-MaxHistoryEntries:]
	}
	return entries, nil
}

// searchBack finds the newest entry before index from (exclusive) that
// holds query, for Ctrl-R; -1 when none does.
func (h *History) searchBack(query string, from int) int {
	if from > len(h.entries) {
		from = len(h.entries)
	}
	for i := from - 1; i >= 0; i-- {
		if query == "" || containsFold(h.entries[i], query) {
			return i
		}
	}
	return -1
}
