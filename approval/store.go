package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/internal/flock"
)

// version is the format of the store's file.
const version = 2

// FileName is the store's file in the user's config folder.
const FileName = "approvals.json"

// Store is the user's record of approvals, one JSON file outside every
// repository.
type Store struct{ path string }

// UserStore is the store under $XDG_CONFIG_HOME/indusvx (default
// ~/.config/indusvx). lookupEnv nil means os.LookupEnv.
func UserStore(lookupEnv func(string) (string, bool)) (Store, error) {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	xdg, _ := lookupEnv("XDG_CONFIG_HOME")
	if xdg == "" {
		home, _ := lookupEnv("HOME")
		if home == "" {
			return Store{}, errors.New("no home directory and no $XDG_CONFIG_HOME to keep approvals in")
		}
		xdg = filepath.Join(home, ".config")
	}
	return Store{path: filepath.Join(xdg, "indusvx", FileName)}, nil
}

// NewStore keeps approvals in the file at path.
func NewStore(path string) Store { return Store{path: path} }

// Path is the store's file.
func (s Store) Path() string { return s.path }

// Record is one approval: the items of a group as the user saw them.
type Record struct {
	At    time.Time `json:"at"`
	Items []Item    `json:"items"`
}

type file struct {
	Version int `json:"version"`
	// Workspaces maps a workspace root to its groups' records.
	Workspaces map[string]map[string]Record `json:"workspaces"`
}

func (s Store) load() (file, error) {
	f := file{Version: version, Workspaces: map[string]map[string]Record{}}
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s is malformed (%v); delete it and approve the workspaces again (indusr mcp trust, indusr hooks trust)", s.path, err)
	}
	if f.Version != version {
		return f, fmt.Errorf("%s has version %d, this indusr reads %d; delete it and approve the workspaces again", s.path, f.Version, version)
	}
	if f.Workspaces == nil {
		f.Workspaces = map[string]map[string]Record{}
	}
	return f, nil
}

// update changes the file under its lock, so two approvals at once both
// land.
func (s Store) update(change func(*file)) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	lock, err := flock.Acquire(s.path + ".lock")
	if err != nil {
		return err
	}
	defer lock.Release()
	f, err := s.load()
	if err != nil {
		return err
	}
	change(&f)
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(s.path, append(b, '\n'), 0o600)
}

// Recorded returns the approval of group in the workspace at root; ok is
// false when there is none.
func (s Store) Recorded(root, group string) (r Record, ok bool, err error) {
	f, err := s.load()
	if err != nil {
		return Record{}, false, err
	}
	r, ok = f.Workspaces[root][group]
	return r, ok, nil
}

// Approve records items as the approved content of group in the
// workspace at root, replacing any earlier approval.
func (s Store) Approve(root, group string, items []Item) error {
	items = Sorted(items)
	return s.update(func(f *file) {
		if f.Workspaces[root] == nil {
			f.Workspaces[root] = map[string]Record{}
		}
		f.Workspaces[root][group] = Record{At: time.Now().UTC(), Items: items}
	})
}

// Revoke removes the approvals of the groups (every group when none is
// named) of the workspace at root; it reports whether there was one.
func (s Store) Revoke(root string, groups ...string) (bool, error) {
	had := false
	err := s.update(func(f *file) {
		ws := f.Workspaces[root]
		for g := range ws {
			if len(groups) == 0 || slices.Contains(groups, g) {
				delete(ws, g)
				had = true
			}
		}
		if len(ws) == 0 {
			delete(f.Workspaces, root)
		}
	})
	return had, err
}
