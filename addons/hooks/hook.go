package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/manifest"
)

// DefaultTimeout is how long a hook may run when it names no timeout:
// Claude Code's default, so its hook scripts keep their budget.
const DefaultTimeout = 60 * time.Second

// Hook is one command hook, ready to run.
type Hook struct {
	// Name is the event's Claude Code name (PreToolUse), which the hook
	// sees as hook_event_name.
	Name string
	// Event is the addons event it runs at (tool:before).
	Event addons.Event
	// Matcher selects tools by name for the tool events (see
	// [Hook.Matches]); other events ignore it.
	Matcher string
	// Command is the shell text, run with bash -c in the workspace.
	Command string
	// Timeout bounds one run; 0 means DefaultTimeout.
	Timeout time.Duration
	// File and Line say where the hook was declared.
	File string
	Line int
	// Claude marks a hook from Claude Code's settings: it sees Claude
	// Code's tool names (Bash, mcp__server__tool) as tool_name and its
	// argument names (file_path) in tool_input, and may answer in them.
	Claude bool
	// AddonDir, for a hook of an addon's manifest, is the addon's folder:
	// the hook sees it as INDUSR_ADDON_DIR, so a script shipped beside
	// the manifest is "$INDUSR_ADDON_DIR/script.sh".
	AddonDir string

	match matcher
}

// New checks a hook and compiles its matcher. event is a Claude Code name
// or ours (PreToolUse or tool:before); timeout 0 means DefaultTimeout.
func New(event, matcher, command string, timeout time.Duration) (Hook, error) {
	name, e, err := manifest.HookEvent(event)
	if err != nil {
		return Hook{}, err
	}
	if strings.TrimSpace(command) == "" {
		return Hook{}, fmt.Errorf("a %s hook needs a command", name)
	}
	if timeout < 0 {
		return Hook{}, fmt.Errorf("timeout %s: give a positive duration", timeout)
	}
	m, err := compileMatcher(matcher)
	if err != nil {
		return Hook{}, err
	}
	return Hook{Name: name, Event: e, Matcher: matcher, Command: command, Timeout: timeout, match: m}, nil
}

// FromDecls turns the checked [[hook]] tables of the manifest file into
// hooks. A table that does not check out (the manifest was not parsed by
// manifest.Parse) is returned as an error naming its line.
func FromDecls(file string, decls []manifest.HookDecl) ([]Hook, error) {
	out := make([]Hook, 0, len(decls))
	for _, d := range decls {
		h, err := New(d.Event, d.Matcher, d.Command, time.Duration(d.Timeout)*time.Second)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, d.Line, err)
		}
		h.File, h.Line, h.AddonDir = file, d.Line, filepath.Dir(file)
		out = append(out, h)
	}
	return out, nil
}

func (h *Hook) timeout() time.Duration {
	if h.Timeout <= 0 {
		return DefaultTimeout
	}
	return h.Timeout
}

// Matches reports whether the hook concerns a call of the tool named
// name: its matcher matches our name or Claude Code's name for the tool,
// so "Bash" and "bash" both select the bash tool.
func (h *Hook) Matches(name string) bool {
	if h.match.matches(name) {
		return true
	}
	alias := ClaudeToolName(name)
	return alias != name && h.match.matches(alias)
}

// where is the hook's origin for messages: "file:line" or its command.
func (h *Hook) where() string {
	if h.File == "" {
		return fmt.Sprintf("%q", h.Command)
	}
	if h.Line > 0 {
		return fmt.Sprintf("%s:%d", h.File, h.Line)
	}
	return h.File
}

// matcher is a compiled matcher with Claude Code's semantics: "" and "*"
// match everything; a plain name (letters, digits, _) or names joined
// with | match exactly; anything else is a regular expression that
// matches anywhere in the name (unanchored, as in Claude Code).
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

var plainMatcher = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

func compileMatcher(m string) (matcher, error) {
	if err := manifest.CheckHookMatcher(m); err != nil {
		return matcher{}, err
	}
	switch {
	case m == "" || m == "*":
		return matcher{all: true}, nil
	case plainMatcher.MatchString(m):
		var names []string
		for n := range strings.SplitSeq(m, "|") {
			names = append(names, strings.TrimSpace(n))
		}
		return matcher{names: names}, nil
	}
	return matcher{re: regexp.MustCompile(m)}, nil // checked above
}

func (m matcher) matches(name string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(name)
	}
	for _, n := range m.names {
		if n == name {
			return true
		}
	}
	return false
}

// Fingerprint identifies what a list of hooks runs: any change of a
// hook's file, event, matcher, command or timeout changes it, moving a
// declaration to another line does not. Approvals are keyed by it.
func Fingerprint(hooks []Hook) string {
	h := sha256.New()
	for _, k := range hooks {
		fmt.Fprintf(h, "%q %q %q %q %d\n", k.File, k.Name, k.Matcher, k.Command, k.Timeout)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
