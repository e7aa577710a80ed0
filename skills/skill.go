package skills

import (
	"fmt"
	"slices"
)

// Scope says whose a skill is.
type Scope string

// The scopes, in the order their skills win a clash of ids.
const (
	Project Scope = "project" // a folder of the repository
	User    Scope = "user"    // a folder of the user's home or config
)

// Skill is one loaded skill.
type Skill struct {
	// ID is the skill's folder name: what the model calls and the user
	// types after the slash.
	ID string
	// Name is the front matter's name; when it differs from ID it is
	// shown beside it.
	Name string
	// Description says what the skill does and when to use it, on one
	// line, cut at MaxDescription characters.
	Description   string
	License       string
	Compatibility string
	Metadata      map[string]string
	// AllowedTools are the front matter's allowed-tools, split on spaces.
	AllowedTools []string
	// DisableModelInvocation keeps the skill out of the model's listing
	// and refuses the model's calls of it; the user can still run it.
	DisableModelInvocation bool
	// UserInvocable is false when the front matter says
	// user-invocable: false: no /id, no $id mention, not in the
	// session's list of commands. The model can still use it.
	UserInvocable bool
	// Dir is the skill's folder (absolute), File its SKILL.md.
	Dir, File string
	Scope     Scope
	// Body is the instructions: the file without its front matter.
	Body string
}

// ModelInvocable reports whether the model may see and call s.
func (s *Skill) ModelInvocable() bool { return !s.DisableModelInvocation }

// Severity says what a problem does to its skill.
type Severity uint8

// The severities.
const (
	// Info: nothing is wrong with the file, but it is not used as it
	// stands (a skill of the same id found earlier wins).
	Info Severity = iota
	// Warning: the file breaks a rule of the format but the skill is
	// loaded (as Claude Code loads it); another agent may refuse it.
	Warning
	// Error: the skill is not loaded.
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "note"
	case Warning:
		return "warning"
	}
	return "error"
}

// Problem is something wrong with a skill's files, at a line of a file
// (Line 0 when it concerns the file or folder as a whole).
type Problem struct {
	File     string
	Line     int
	Severity Severity
	Message  string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Severity, p.Message)
	}
	return fmt.Sprintf("%s: %s: %s", p.File, p.Severity, p.Message)
}

// Set is the skills of a session, in discovery order, with the problems
// found on the way.
type Set struct {
	Skills   []*Skill
	Problems []Problem
}

// Lookup returns the skill of id.
func (s *Set) Lookup(id string) (*Skill, bool) {
	if s == nil {
		return nil, false
	}
	for _, sk := range s.Skills {
		if sk.ID == id {
			return sk, true
		}
	}
	return nil, false
}

// ForModel returns the skills the model may see, in order; a non-nil only
// narrows them to those ids (the Agent SDK's skills option).
func (s *Set) ForModel(only []string) []*Skill {
	if s == nil {
		return nil
	}
	var out []*Skill
	for _, sk := range s.Skills {
		if sk.ModelInvocable() && (only == nil || slices.Contains(only, sk.ID)) {
			out = append(out, sk)
		}
	}
	return out
}

// UserInvocable returns the ids the user can run as /id, in order.
func (s *Set) UserInvocable() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, sk := range s.Skills {
		if sk.UserInvocable {
			out = append(out, sk.ID)
		}
	}
	return out
}

// Count counts the problems of severity sev.
func (s *Set) Count(sev Severity) int {
	if s == nil {
		return 0
	}
	n := 0
	for _, p := range s.Problems {
		if p.Severity == sev {
			n++
		}
	}
	return n
}
