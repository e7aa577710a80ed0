package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Options say where to look for skills.
type Options struct {
	// Dir is the working directory; "" means the current one. The
	// repository is the nearest folder at or above it holding .git (Dir
	// itself when there is none).
	Dir string
	// Home is the user's home folder; "" means $HOME.
	Home string
	// ConfigHome is the user's config folder; "" means $XDG_CONFIG_HOME,
	// else Home/.config.
	ConfigHome string
	// NoUser looks only in the repository.
	NoUser bool
}

// Location is one folder whose subfolders are skills.
type Location struct {
	Dir   string
	Scope Scope
	// repo is the repository the folder is opened beneath ("" for the
	// user's folders).
	repo string
}

// Locations returns the folders searched, in the order their skills win:
// the project's .claude/skills, .agents/skills in each folder from the
// repository's root down to Dir (as Codex reads them), .indus/skills; then
// the user's ~/.claude/skills, ~/.agents/skills and
// $XDG_CONFIG_HOME/indusvx/skills.
func Locations(o Options) []Location {
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	repo := repoRoot(dir)
	locs := []Location{{Dir: filepath.Join(dir, ".claude", "skills"), Scope: Project, repo: repo}}
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == repo || d == filepath.Dir(d) {
			break
		}
	}
	slices.Reverse(chain)
	for _, d := range chain {
		locs = append(locs, Location{Dir: filepath.Join(d, ".agents", "skills"), Scope: Project, repo: repo})
	}
	locs = append(locs, Location{Dir: filepath.Join(dir, ".indus", "skills"), Scope: Project, repo: repo})
	if o.NoUser {
		return locs
	}
	home := o.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	conf := o.ConfigHome
	if conf == "" {
		conf = os.Getenv("XDG_CONFIG_HOME")
	}
	if conf == "" && home != "" {
		conf = filepath.Join(home, ".config")
	}
	if home != "" {
		locs = append(locs, Location{Dir: filepath.Join(home, ".claude", "skills"), Scope: User},
			Location{Dir: filepath.Join(home, ".agents", "skills"), Scope: User})
	}
	if conf != "" {
		locs = append(locs, Location{Dir: filepath.Join(conf, "indusvx", "skills"), Scope: User})
	}
	// A folder that is both the project's and the user's (a session in the
	// home folder) is read once, as the project's.
	out := locs[:0]
	for _, l := range locs {
		if !slices.ContainsFunc(out, func(o Location) bool { return o.Dir == l.Dir }) {
			out = append(out, l)
		}
	}
	return out
}

// repoRoot is the nearest folder at or above dir that holds .git, else dir.
func repoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return dir
		}
	}
}

// maxEntries bounds the entries read from one skills folder, as the
// format's guide for clients suggests (2,000 folders a root), so that a
// folder of a huge tree cannot stall the start of a session.
const maxEntries = 2000

// Discover loads the skills of every location, in order; of two skills of
// one id the first wins and the other is noted. It never fails: a folder
// or file that cannot be read is a problem of the set.
func Discover(o Options) *Set {
	set := &Set{}
	seen := map[string]*Skill{}
	for _, loc := range Locations(o) {
		r := newReader(loc.repo)
		for _, c := range r.skillDirs(loc.Dir, &set.Problems) {
			if prev, dup := seen[filepath.Base(c)]; dup {
				set.Problems = append(set.Problems, Problem{File: filepath.Join(c, "SKILL.md"), Severity: Info,
					Message: fmt.Sprintf("not used: the skill %q of %s comes first", prev.ID, prev.File)})
				continue
			}
			sk, probs := r.load(c)
			set.Problems = append(set.Problems, probs...)
			if sk == nil {
				continue
			}
			sk.Scope = loc.Scope
			seen[sk.ID] = sk
			set.Skills = append(set.Skills, sk)
		}
		r.close()
	}
	return set
}

// LoadDir loads the one skill in dir (a folder holding SKILL.md), for
// checking a skill that is not in a searched location.
func LoadDir(dir string) (*Skill, []Problem) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if filepath.Base(dir) == "SKILL.md" {
		dir = filepath.Dir(dir)
	}
	return newReader("").load(dir)
}

// skillDirs lists the skill folders of a skills folder, by name; hidden
// entries and plain files are passed over.
func (r *reader) skillDirs(dir string, probs *[]Problem) []string {
	entries, err := r.readDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			*probs = append(*probs, Problem{File: dir, Severity: Error, Message: "not read: " + reason(err)})
		}
		return nil
	}
	if len(entries) > maxEntries {
		*probs = append(*probs, Problem{File: dir, Severity: Warning,
			Message: fmt.Sprintf("holds %d entries; only the first %d are read", len(entries), maxEntries)})
		entries = entries[:maxEntries]
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		switch t := e.Type(); {
		case t.IsDir():
		case t&fs.ModeSymlink != 0:
			fi, err := r.stat(path)
			if err != nil {
				*probs = append(*probs, Problem{File: path, Severity: Error, Message: "not read: " + reason(err)})
				continue
			}
			if !fi.IsDir() {
				continue
			}
		default:
			continue
		}
		out = append(out, path)
	}
	return out
}

// load reads the skill of folder dir.
func (r *reader) load(dir string) (*Skill, []Problem) {
	file := filepath.Join(dir, "SKILL.md")
	data, err := r.readFile(file)
	var lower []Problem
	if errors.Is(err, fs.ErrNotExist) {
		alt := filepath.Join(dir, "skill.md")
		if d, err2 := r.readFile(alt); !errors.Is(err2, fs.ErrNotExist) {
			file, data, err = alt, d, err2
			lower = []Problem{{File: alt, Severity: Warning, Message: "the file is named skill.md; the format names it SKILL.md"}}
		}
	}
	if err != nil {
		msg := "not read: " + reason(err)
		if errors.Is(err, fs.ErrNotExist) {
			msg = "no SKILL.md: a skill is a folder holding SKILL.md (folders nested deeper are not searched)"
			file = dir
		}
		return nil, []Problem{{File: file, Severity: Error, Message: msg}}
	}
	sk, probs := parse(file, filepath.Base(dir), data)
	if sk != nil {
		sk.Dir, sk.File = dir, file
	}
	return sk, append(lower, probs...)
}
