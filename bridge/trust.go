package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/indusagi/induscode/internal/atomicfile"
)

// A repository's own MCP config (.indusvx/mcp.json, .mcp.json) names
// commands that run as the user the moment a server is mounted: cloning a
// repository and running any indusr command in it must not execute them.
// So servers from those files run only once the user has approved the
// files' current content for that workspace. Approvals live in the user's
// config folder, outside every repository, keyed by the workspace and a
// fingerprint of the files; any change to the files needs a new approval.

// trustVersion is the format of the trust file.
const trustVersion = 1

// TrustStore is the user's record of approved workspace configs.
type TrustStore struct{ path string }

// UserTrustStore is the store under $XDG_CONFIG_HOME/indusvx (default
// ~/.config/indusvx). lookupEnv nil means os.LookupEnv.
func UserTrustStore(lookupEnv func(string) (string, bool)) (TrustStore, error) {
	l := Loader{LookupEnv: lookupEnv}
	xdg, _ := l.lookup("XDG_CONFIG_HOME")
	if xdg == "" {
		home := l.home()
		if home == "" {
			return TrustStore{}, errors.New("no home directory and no $XDG_CONFIG_HOME to keep MCP trust approvals in")
		}
		xdg = filepath.Join(home, ".config")
	}
	return TrustStore{path: filepath.Join(xdg, "indusvx", "trusted-mcp.json")}, nil
}

// NewTrustStore keeps approvals in the file at path.
func NewTrustStore(path string) TrustStore { return TrustStore{path: path} }

// Path is the store's file.
func (s TrustStore) Path() string { return s.path }

type trustFile struct {
	Version    int                      `json:"version"`
	Workspaces map[string]trustApproval `json:"workspaces"`
}

type trustApproval struct {
	Fingerprint string    `json:"fingerprint"`
	At          time.Time `json:"at"`
}

// Fingerprint hashes the named files' paths and contents (a missing file
// counts as absent), so any edit, addition or removal changes it.
func Fingerprint(files []string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(h, "absent %q\n", f)
		case err != nil:
			return "", err
		default:
			fmt.Fprintf(h, "file %q %d\n", f, len(b))
			h.Write(b)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func (s TrustStore) load() (trustFile, error) {
	f := trustFile{Version: trustVersion, Workspaces: map[string]trustApproval{}}
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s is malformed (%v); delete it and approve the workspaces again with indusr mcp trust", s.path, err)
	}
	if f.Version != trustVersion {
		return f, fmt.Errorf("%s has version %d, this indusr reads %d", s.path, f.Version, trustVersion)
	}
	if f.Workspaces == nil {
		f.Workspaces = map[string]trustApproval{}
	}
	return f, nil
}

func (s TrustStore) save(f trustFile) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(s.path, append(b, '\n'), 0o600)
}

// Trusted reports whether workspace's configs with this fingerprint are
// approved.
func (s TrustStore) Trusted(workspace, fingerprint string) (bool, error) {
	f, err := s.load()
	if err != nil {
		return false, err
	}
	a, ok := f.Workspaces[workspace]
	return ok && a.Fingerprint == fingerprint, nil
}

// Trust approves workspace's configs with this fingerprint.
func (s TrustStore) Trust(workspace, fingerprint string) error {
	f, err := s.load()
	if err != nil {
		return err
	}
	f.Workspaces[workspace] = trustApproval{Fingerprint: fingerprint, At: time.Now().UTC()}
	return s.save(f)
}

// Revoke removes the approval of workspace; it reports whether there was
// one.
func (s TrustStore) Revoke(workspace string) (bool, error) {
	f, err := s.load()
	if err != nil {
		return false, err
	}
	if _, ok := f.Workspaces[workspace]; !ok {
		return false, nil
	}
	delete(f.Workspaces, workspace)
	return true, s.save(f)
}
