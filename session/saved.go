package session

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/checklist"
	"github.com/indusagi/induscode/workspace"
)

// A named session carries what a session knows from one process to the
// next: the files it read (so a read in one `indusr call` satisfies the
// read-before-edit gate of an edit in the next, which still compares
// content hashes) and its checklist.

// validName keeps session names safe as file names.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// savedVersion is the format of session files; a file of another version
// is refused rather than misread.
const savedVersion = 1

type savedFile struct {
	Version int              `json:"version"`
	Reads   []savedRead      `json:"reads"`
	Todos   []checklist.Item `json:"todos"`
}

type savedRead struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`
	SHA256  string    `json:"sha256"`
	At      time.Time `json:"at"`
}

// CorruptError is a saved session that cannot be used as it is. Deleting
// the file starts the session afresh.
type CorruptError struct {
	Path string
	Msg  string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("session file %s %s; delete it to start the session afresh", e.Path, e.Msg)
}

// SavedPath returns the file of the named session of workspace dir.
func SavedPath(dir, name string) (string, error) {
	if !validName().MatchString(name) {
		return "", &OptionError{Option: "name", Msg: fmt.Sprintf("session name %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)}
	}
	return workspace.At(dir).Session(name), nil
}

type saved struct {
	reads *tool.ReadState
	todos []checklist.Item
}

// loadSaved reads the named session of workspace dir; one that does not
// exist yet is empty.
func loadSaved(dir, name string) (saved, error) {
	path, err := SavedPath(dir, name)
	if err != nil {
		return saved{}, err
	}
	out := saved{reads: tool.NewReadState()}
	data, err := workspace.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return saved{}, fmt.Errorf("session %s: %w", name, err)
	}
	var f savedFile
	if err := json.Unmarshal(data, &f); err != nil {
		return saved{}, &CorruptError{Path: path, Msg: fmt.Sprintf("is malformed (%v)", err)}
	}
	if f.Version != savedVersion {
		return saved{}, &CorruptError{Path: path, Msg: fmt.Sprintf("has version %d, and this indusr reads version %d", f.Version, savedVersion)}
	}
	for _, r := range f.Reads {
		var rec tool.ReadRecord
		h, err := hex.DecodeString(r.SHA256)
		if err != nil || len(h) != len(rec.Hash) {
			return saved{}, &CorruptError{Path: path, Msg: fmt.Sprintf("has a bad sha256 for %s", r.Path)}
		}
		copy(rec.Hash[:], h)
		rec.Path, rec.Size, rec.ModTime, rec.At = r.Path, r.Size, r.ModTime, r.At
		out.reads.Record(rec)
	}
	out.todos = f.Todos
	return out, nil
}

// save writes the session state of env under name, atomically.
func save(env *tool.Env, name string) error {
	path, err := SavedPath(env.Dir, name)
	if err != nil {
		return err
	}
	f := savedFile{Version: savedVersion, Reads: []savedRead{}, Todos: checklist.Of(env).Items()}
	if f.Todos == nil {
		f.Todos = []checklist.Item{}
	}
	for _, r := range env.Reads.Records() {
		f.Reads = append(f.Reads, savedRead{Path: r.Path, Size: r.Size, ModTime: r.ModTime,
			SHA256: hex.EncodeToString(r.Hash[:]), At: r.At})
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := workspace.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("saving session %s: %w", name, err)
	}
	if err := workspace.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving session %s: %w", name, err)
	}
	return nil
}
