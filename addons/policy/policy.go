// Package policy is the capability policy addons run under and the one
// funnel every addon path goes through before use. A [Policy] grants
// nothing unless the host says so: no file system, no inherited
// environment. Paths are confined the way the file tools confine them: a
// lexical check against the root, then the operating system's os.Root,
// which refuses a symlink that leads out of the root.
package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/indusagi/induscode/tool"
)

// DefaultTimeout bounds one call of an out-of-process addon: thirty
// seconds, the default, long enough for a linter, short enough that
// a hung addon does not hold a turn.
const DefaultTimeout = 30 * time.Second

// Policy is what an addon may reach. The zero value, like [DenyAll],
// grants nothing.
type Policy struct {
	// AllowFS grants file access, and only under Root.
	AllowFS bool
	// Root is the confinement root; without one AllowFS grants nothing.
	Root string
	// Timeout bounds one call; zero means DefaultTimeout.
	Timeout time.Duration
	// Env names the environment variables passed on; empty passes none.
	Env []string
}

// DenyAll grants nothing.
func DenyAll() Policy { return Policy{Timeout: DefaultTimeout} }

// ConfinedTo grants file access at or under root.
func ConfinedTo(root string) Policy {
	return Policy{AllowFS: true, Root: root, Timeout: DefaultTimeout}
}

// CallTimeout is the policy's timeout, or DefaultTimeout.
func (p Policy) CallTimeout() time.Duration {
	if p.Timeout <= 0 {
		return DefaultTimeout
	}
	return p.Timeout
}

// Errors of [Policy.CheckPath], for errors.Is.
var (
	ErrNoFS        = errors.New("the addon has no file-system grant")
	ErrNoRoot      = errors.New("the file-system grant has no confinement root")
	ErrOutsideRoot = errors.New("the path is outside the confinement root")
)

// PermitsPath reports whether the policy lets an addon reach path.
func (p Policy) PermitsPath(path string) bool { return p.CheckPath(path) == nil }

// CheckPath says why path is refused, or returns nil. In order: no grant,
// no root, a path that lies outside the root once cleaned (so
// <root>/../etc/passwd is refused), and, when the path exists, a path
// that leads out of the root through a symlink. The lexical check is the
// file tools' own (tool.Env.WorkspaceRoot) and the symlink check is
// os.Root's, so the project has one confinement rule; like os.Root, it
// refuses an absolute symlink even when it points back inside the root.
func (p Policy) CheckPath(path string) error {
	if !p.AllowFS {
		return ErrNoFS
	}
	if strings.TrimSpace(p.Root) == "" {
		return ErrNoRoot
	}
	root, err := filepath.Abs(ScrubInvisible(p.Root))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoRoot, err)
	}
	abs := ResolvePath(path, root, "")
	env := &tool.Env{Dir: root, Roots: []string{root}}
	_, rel, err := env.WorkspaceRoot(abs)
	if err != nil {
		return fmt.Errorf("%w: %s is not under %s", ErrOutsideRoot, abs, root)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // nothing exists there, so nothing can lead out
		}
		return fmt.Errorf("%w: opening %s: %v", ErrOutsideRoot, root, err)
	}
	defer r.Close()
	if _, err := r.Stat(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s leads out of %s (%v)", ErrOutsideRoot, abs, root, err)
	}
	return nil
}

// PermitsEnv reports whether the variable name may be passed on.
func (p Policy) PermitsEnv(name string) bool { return slices.Contains(p.Env, name) }

// invisible are the code points ScrubInvisible removes: characters that
// look like nothing or like a plain space, so a path that reads right can
// name another file. The list is explicit so it can be audited.
var invisible = []rune{
	'\u00A0',                                                             // no-break space
	'\u1680',                                                             // ogham space mark
	'\u180E',                                                             // mongolian vowel separator
	'\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', // en quad .. six-per-em space
	'\u2007', '\u2008', '\u2009', '\u200A', // figure, punctuation, thin, hair space
	'\u200B',                                         // zero-width space
	'\u200C',                                         // zero-width non-joiner
	'\u200D',                                         // zero-width joiner
	'\u200E',                                         // left-to-right mark
	'\u200F',                                         // right-to-left mark
	'\u202A', '\u202B', '\u202C', '\u202D', '\u202E', // bidi embeddings and overrides
	'\u202F',                               // narrow no-break space
	'\u205F',                               // medium mathematical space
	'\u2060',                               // word joiner
	'\u2066', '\u2067', '\u2068', '\u2069', // bidi isolates
	'\u3000', // ideographic space
	'\uFEFF', // byte-order mark, zero-width no-break space
}

// InvisibleCodePoints returns the list ScrubInvisible removes.
func InvisibleCodePoints() []rune { return slices.Clone(invisible) }

// ScrubInvisible removes the invisible code points and trims ordinary
// white space at both ends. Other characters, emoji included, are kept.
func ScrubInvisible(raw string) string {
	s := strings.Map(func(r rune) rune {
		if slices.Contains(invisible, r) {
			return -1
		}
		return r
	}, raw)
	return strings.TrimSpace(s)
}

// ExpandPath scrubs raw and expands a leading "~" or "~/" to home ("" means
// the user's home directory). A "~" elsewhere is an ordinary character.
// When home cannot be found the path is returned as written.
func ExpandPath(raw, home string) string {
	s := ScrubInvisible(raw)
	if s != "~" && !strings.HasPrefix(s, "~/") {
		return s
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil || h == "" {
			return s
		}
		home = h
	}
	return filepath.Join(home, s[1:])
}

// ResolvePath scrubs and expands raw and anchors a relative result at
// base ("" means the current directory). The result is absolute and clean.
func ResolvePath(raw, base, home string) string {
	s := ExpandPath(raw, home)
	if !filepath.IsAbs(s) {
		if base == "" {
			if wd, err := os.Getwd(); err == nil {
				base = wd
			}
		}
		s = filepath.Join(base, s)
	}
	if abs, err := filepath.Abs(s); err == nil {
		s = abs
	}
	return filepath.Clean(s)
}
