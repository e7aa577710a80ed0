package manifest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/indusagi/induscode/addons"
)

// HookDecl is one [[hook]] of a manifest: a shell command run at an event
// under Claude Code's hook contract (a JSON request on stdin; the exit code
// and an optional JSON reply on stdout decide). This package only reads and
// checks the declaration; package addons/hooks runs it, through the
// [Loader]'s Hooks binder.
//
//	[[hook]]
//	event = "PreToolUse"            # or "tool:before"
//	matcher = "bash"                # tool names: "" or "*" is every tool, "edit|write", a regex
//	command = "./block-rm-rf.sh"    # run with bash -c in the workspace
//	timeout = 10                    # seconds; default 60
type HookDecl struct {
	Event   string `toml:"event" json:"event"`
	Matcher string `toml:"matcher" json:"matcher,omitempty"`
	Command string `toml:"command" json:"command"`
	// Timeout is in seconds, as in Claude Code's settings; 0 means the
	// default.
	Timeout int `toml:"timeout" json:"timeout,omitempty"`
	// Line is where the [[hook]] table starts in its manifest.
	Line int `toml:"-" json:"line,omitempty"`
}

// MaxHookTimeout bounds a hook's timeout: a gate that may hold a tool
// call for longer than ten minutes is a mistake, not a policy.
const MaxHookTimeout = 600

// hookEvents are the events a hook may name, Claude Code's names first,
// each with the event it runs at. Stop runs at the turn:end where the
// main agent stops (LifecyclePayload.Stopping); SubagentStart and
// SubagentStop at the start and end of a subagent (the task card run in
// process). Claude Code's other events (Notification, ...) have no
// counterpart here yet.
var hookEvents = []struct {
	claude string
	event  addons.Event
}{
	{"PreToolUse", addons.ToolBefore},
	{"PostToolUse", addons.ToolAfter},
	{"SessionStart", addons.SessionStart},
	{"SessionEnd", addons.SessionEnd},
	{"UserPromptSubmit", addons.InputSubmit},
	{"PreCompact", addons.CompactBefore},
	{"Stop", addons.TurnEnd},
	{"SubagentStart", addons.SubagentStart},
	{"SubagentStop", addons.SubagentStop},
}

// HookEvent returns the event a hook's event name runs at and its Claude
// Code name: name may be either ("PreToolUse" or "tool:before").
func HookEvent(name string) (claude string, e addons.Event, err error) {
	for _, h := range hookEvents {
		if name == h.claude || name == h.event.String() {
			return h.claude, h.event, nil
		}
	}
	var names []string
	for _, h := range hookEvents {
		names = append(names, h.claude+" ("+h.event.String()+")")
	}
	return "", 0, fmt.Errorf("%q is not a hook event; hook events are %s", name, strings.Join(names, ", "))
}

// HookEventNames lists the Claude Code names of the hook events.
func HookEventNames() []string {
	var out []string
	for _, h := range hookEvents {
		out = append(out, h.claude)
	}
	return out
}

// CheckHookMatcher reports a matcher that cannot be compiled. "" and "*"
// match every tool; anything else is a Go regular expression (RE2: no
// look-around or back-references).
func CheckHookMatcher(m string) error {
	if m == "" || m == "*" {
		return nil
	}
	if _, err := regexp.Compile(m); err != nil {
		return fmt.Errorf("%q is not a valid regular expression (%v); write a tool name, names joined with |, or an RE2 expression", m, err)
	}
	return nil
}

// check returns the field of a bad declaration and what is wrong with it.
func (h HookDecl) check() (field, msg string) {
	if strings.TrimSpace(h.Event) == "" {
		return "event", fmt.Sprintf("must be set, one of %s", strings.Join(HookEventNames(), ", "))
	}
	if _, _, err := HookEvent(h.Event); err != nil {
		return "event", err.Error()
	}
	if err := CheckHookMatcher(h.Matcher); err != nil {
		return "matcher", err.Error()
	}
	if strings.TrimSpace(h.Command) == "" {
		return "command", "must be set: the shell command to run"
	}
	if h.Timeout < 0 || h.Timeout > MaxHookTimeout {
		return "timeout", fmt.Sprintf("%d: give seconds from 1 to %d (0 or none means 60)", h.Timeout, MaxHookTimeout)
	}
	return "", ""
}

// HookBinder registers the hooks of one manifest on the addon's surface;
// file is the manifest. The session supplies one that runs them (package
// addons/hooks) once the user has approved them.
type HookBinder func(api addons.API, file string, hooks []HookDecl) error

// withHooks returns a with its register function followed by bind over
// the manifest's hooks.
func withHooks(a *addons.Addon, bind HookBinder, file string, hooks []HookDecl) *addons.Addon {
	if bind == nil || len(hooks) == 0 {
		return a
	}
	reg := a.Register
	hooks = slices.Clone(hooks)
	a.Register = func(api addons.API) error {
		if reg != nil {
			if err := reg(api); err != nil {
				return err
			}
		}
		return bind(api, file, hooks)
	}
	return a
}

// Hooks reads the [[hook]] tables of every manifest addon found by
// d, by manifest file, without loading anything. A manifest that does not
// parse is left out: loading it reports the fault.
func Hooks(_ context.Context, d addons.Discovery) map[string][]HookDecl {
	out := map[string][]HookDecl{}
	for _, src := range addons.Sources(d) {
		if file, desc := read(src.Path); desc != nil && len(desc.Hooks) > 0 {
			out[file] = desc.Hooks
		}
	}
	return out
}

// fileOf is the manifest.toml of an addon entry path, if it has one.
func fileOf(path string) (string, bool) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return filepath.Join(path, addons.ManifestFile), true
	}
	return path, filepath.Base(path) == addons.ManifestFile
}

// Processes returns the [process] tables of the manifests found by
// d, by manifest file. Like [Hooks] it starts nothing: a host asks
// the user before it runs a repository's processes.
func Processes(d addons.Discovery) map[string]*ProcessDecl {
	out := map[string]*ProcessDecl{}
	for _, src := range addons.Sources(d) {
		if file, desc := read(src.Path); desc != nil && desc.Process != nil {
			out[file] = desc.Process
		}
	}
	return out
}

// read reads and parses the manifest of an addon entry path; desc
// is nil when there is none or it does not parse (loading reports why).
func read(path string) (file string, desc *Descriptor) {
	file, ok := fileOf(path)
	if !ok {
		return file, nil
	}
	data, err := ReadFile(file)
	if err != nil {
		return file, nil
	}
	desc, err = Parse(file, data)
	if err != nil {
		return file, nil
	}
	return file, desc
}

// IsProcess reports whether the addon at path is a [process] addon.
func IsProcess(path string) bool {
	_, desc := read(path)
	return desc != nil && desc.Process != nil
}
