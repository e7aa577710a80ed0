package rpc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/workspace"
)

// Crash policy. Three crashes within a minute is a loop, not bad luck:
// the addon is quarantined rather than restarted forever. The quarantine
// lasts until the addon's files change or ten minutes pass, long enough
// that a session is not slowed by a broken addon, short enough that a
// transient cause (a full disk) heals by itself.
const (
	CrashLimit       = 3
	CrashWindow      = time.Minute
	QuarantinePeriod = 10 * time.Minute
	// firstBackoff doubles with each crash in the window: a restart
	// waits 250 ms, then 500 ms.
	firstBackoff = 250 * time.Millisecond
)

// record is what the host keeps per addon in .indusvx/addon-state: the
// last declarations it answered (so a session can register them without
// starting the addon) and its crash history.
type record struct {
	Fingerprint  string        `json:"fingerprint"`
	Declarations *Declarations `json:"declarations,omitempty"`
	Crashes      []time.Time   `json:"crashes,omitempty"`
	Quarantined  *Quarantine   `json:"quarantined,omitempty"`
}

// Quarantine says since when, and why, an addon is not started again.
type Quarantine struct {
	Since  time.Time `json:"since"`
	Reason string    `json:"reason"`
}

// active reports whether q still holds at now.
func (q *Quarantine) active(now time.Time) bool {
	return q != nil && now.Before(q.Since.Add(QuarantinePeriod))
}

// stateFile is the record of addon id in dir ("" keeps none).
func stateFile(dir, id string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, childlog.FileName(id)+".json")
}

// readRecord reads a record; a missing or damaged one reads as empty (the
// addon is then asked again).
func readRecord(path string) record {
	var r record
	if path == "" {
		return r
	}
	if b, err := workspace.ReadFile(path); err == nil {
		if json.Unmarshal(b, &r) != nil {
			r = record{}
		}
	}
	return r
}

// writeRecord writes a record atomically.
func writeRecord(path string, r record) error {
	if path == "" {
		return nil
	}
	if err := workspace.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return workspace.WriteFile(path, append(b, '\n'), 0o644)
}

// fingerprint identifies a version of an addon without running it: its
// manifest, and the size and modification time of each regular file at
// the top of its folder and of each file its command names (the program
// found on PATH, a script given by path). A change to any of them means
// the cached declarations may be stale.
func fingerprint(dir string, manifest []byte, command []string) string {
	h := sha256.New()
	h.Write(manifest)
	stamp := func(p string) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			fmt.Fprintf(h, "\x00%s %d %d", p, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			stamp(filepath.Join(dir, e.Name()))
		}
	}
	for i, arg := range command {
		if i == 0 && !strings.ContainsRune(arg, '/') {
			if p, err := exec.LookPath(arg); err == nil {
				stamp(p)
			}
			continue
		}
		if !filepath.IsAbs(arg) {
			arg = filepath.Join(dir, arg)
		}
		stamp(arg)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Status is what `indusr addons list` shows of a Tier-1 addon.
type Status struct {
	ID      string      `json:"id"`
	Command []string    `json:"command"`
	Log     string      `json:"log,omitempty"`
	PID     int         `json:"pid,omitempty"` // while running
	Crashes int         `json:"recentCrashes"`
	State   string      `json:"state"` // "ready" (not running), "running" or "quarantined"
	Why     *Quarantine `json:"quarantined,omitempty"`
	// Declared is what the addon answered to initialize, when known.
	Declared *Declarations `json:"declared,omitempty"`
}

// noteCrash adds a crash at now to r, drops those outside the window, and
// quarantines the addon when the limit is reached. It returns the backoff
// before the next start.
func (r *record) noteCrash(now time.Time, why string) time.Duration {
	r.Crashes = slices.DeleteFunc(append(r.Crashes, now), func(t time.Time) bool { return now.Sub(t) > CrashWindow })
	if len(r.Crashes) >= CrashLimit {
		r.Quarantined = &Quarantine{Since: now, Reason: fmt.Sprintf("%d crashes within %v, the last: %s", len(r.Crashes), CrashWindow, why)}
	}
	return firstBackoff << (len(r.Crashes) - 1)
}
