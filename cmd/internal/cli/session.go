package cli

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/checklist"
	"github.com/indusagi/induscode/workspace"
)

// A named session (--session NAME) carries what a session knows between
// indusr runs: the files it read (so `indusr call read` then `indusr call
// edit` passes the read-before-edit gate, which still compares content
// hashes) and its checklist. Without --session every run is a new session.

// sessionName keeps session names safe as file names.
var sessionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// sessionVersion is the format of session files; a file of another
// version is refused rather than misread.
const sessionVersion = 1

type sessionFile struct {
	Version int              `json:"version"`
	Reads   []sessionRead    `json:"reads"`
	Todos   []checklist.Item `json:"todos"`
}

type sessionRead struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`
	SHA256  string    `json:"sha256"`
	At      time.Time `json:"at"`
}

func sessionPath(dir, name string) (string, error) {
	if !sessionName().MatchString(name) {
		return "", usagef("--session %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return workspace.At(dir).Session(name), nil
}

// loadSession reads the named session of the workspace dir. A session that
// does not exist yet is empty.
func loadSession(dir, name string) (*tool.ReadState, []checklist.Item, error) {
	path, err := sessionPath(dir, name)
	if err != nil {
		return nil, nil, err
	}
	reads := tool.NewReadState()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return reads, nil, nil
	}
	if err != nil {
		return nil, nil, &failure{fmt.Errorf("session %s: %w", name, err)}
	}
	var f sessionFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, &failure{fmt.Errorf("session file %s is malformed (%v); delete it to start the session afresh", path, err)}
	}
	if f.Version != sessionVersion {
		return nil, nil, &failure{fmt.Errorf("session file %s has version %d, this indusr reads version %d; delete it to start afresh", path, f.Version, sessionVersion)}
	}
	for _, r := range f.Reads {
		var rec tool.ReadRecord
		if h, err := hex.DecodeString(r.SHA256); err != nil || len(h) != len(rec.Hash) {
			return nil, nil, &failure{fmt.Errorf("session file %s: bad sha256 for %s; delete the file to start afresh", path, r.Path)}
		} else {
			copy(rec.Hash[:], h)
		}
		rec.Path, rec.Size, rec.ModTime, rec.At = r.Path, r.Size, r.ModTime, r.At
		reads.Record(rec)
	}
	return reads, f.Todos, nil
}

// saveSession writes the session's state back, atomically.
func saveSession(d *deck.Deck, name string) error {
	env := d.Env()
	path, err := sessionPath(env.Dir, name)
	if err != nil {
		return err
	}
	f := sessionFile{Version: sessionVersion, Reads: []sessionRead{}, Todos: checklist.Of(env).Items()}
	if f.Todos == nil {
		f.Todos = []checklist.Item{}
	}
	for _, r := range env.Reads.Records() {
		f.Reads = append(f.Reads, sessionRead{Path: r.Path, Size: r.Size, ModTime: r.ModTime,
			SHA256: hex.EncodeToString(r.Hash[:]), At: r.At})
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return &failure{err}
	}
	if err := workspace.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &failure{fmt.Errorf("saving session %s: %w", name, err)}
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return &failure{fmt.Errorf("saving session %s: %w", name, err)}
	}
	return nil
}
