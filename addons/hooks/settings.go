package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/workspace"
)

// SettingsFiles are the Claude Code settings of a project that may hold
// hooks, in the order Claude Code reads them: the shared settings, then
// the user's local ones (not committed, but a checkout may still carry
// one, so both need approval alike).
func SettingsFiles(root string) []string {
	return []string{
		filepath.Join(root, ".claude", "settings.json"),
		filepath.Join(root, ".claude", "settings.local.json"),
	}
}

// UserSettingsFile is the user's own Claude Code settings under home,
// ~/.claude/settings.json. Its hooks are the user's, as user-level MCP
// configs are: they need no approval.
func UserSettingsFile(home string) string {
	return filepath.Join(home, ".claude", "settings.json")
}

// LoadSettings reads the hooks of every settings file of the project at
// root. A missing file holds none; every problem is a fault naming the
// file and, where it can, the line, and the rest still load.
// The files are read beneath root: a link out of the project, a named
// pipe, a device or a file over the size bound is a fault, not a hang.
func LoadSettings(root string) ([]Hook, []*addons.Fault) {
	return loadSettings(root, SettingsFiles(root))
}

// LoadSettingsFiles is LoadSettings for the given files of the user's own
// (their links are followed), in order.
func LoadSettingsFiles(files ...string) ([]Hook, []*addons.Fault) {
	return loadSettings("", files)
}

func loadSettings(root string, files []string) ([]Hook, []*addons.Fault) {
	var hooks []Hook
	var faults []*addons.Fault
	for _, f := range files {
		data, err := workspace.ReadRepoFile(root, f, workspace.MaxConfigFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			faults = append(faults, &addons.Fault{Kind: addons.LoadFault, File: f, Msg: "cannot read the settings", Err: err})
			continue
		}
		h, fs := ParseSettings(f, data)
		hooks = append(hooks, h...)
		faults = append(faults, fs...)
	}
	return hooks, faults
}

// settingsGroup is one entry of an event's list in the hooks section.
type settingsGroup struct {
	Matcher string            `json:"matcher"`
	Hooks   []json.RawMessage `json:"hooks"`
}

type settingsHook struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"` // seconds
}

// ParseSettings reads the hooks section of a Claude Code settings file
// (file names it in faults):
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//	    {"type": "command", "command": "./check.sh", "timeout": 30}]}]}}
//
// Every other key of the file is Claude Code's business and ignored. An
// event, a hook type or a hook that cannot run here is left out with a
// fault saying why; the others load.
func ParseSettings(file string, data []byte) ([]Hook, []*addons.Fault) {
	fault := func(line int, format string, args ...any) *addons.Fault {
		return &addons.Fault{Kind: addons.LoadFault, File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	var doc struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, []*addons.Fault{fault(errorLine(data, err), "settings are not valid JSON, or hooks is not an object: %v", err)}
	}
	lines := jsonLines(data)
	events := make([]string, 0, len(doc.Hooks))
	for e := range doc.Hooks {
		events = append(events, e)
	}
	slices.SortFunc(events, func(a, b string) int { return lines["/hooks/"+a] - lines["/hooks/"+b] })

	var hooks []Hook
	var faults []*addons.Fault
	for _, event := range events {
		at := "/hooks/" + event
		if _, _, err := manifest.HookEvent(event); err != nil {
			faults = append(faults, fault(lines[at], "hooks of event %s are not run: %v", event, err))
			continue
		}
		var groups []json.RawMessage
		if err := json.Unmarshal(doc.Hooks[event], &groups); err != nil {
			faults = append(faults, fault(lines[at], "hooks.%s must be a list of {matcher, hooks} objects: %v", event, err))
			continue
		}
		for gi, raw := range groups {
			gat := at + "/" + strconv.Itoa(gi)
			var g settingsGroup
			if err := json.Unmarshal(raw, &g); err != nil {
				faults = append(faults, fault(lines[gat], "hooks.%s[%d] must be {\"matcher\": \"…\", \"hooks\": […]}: %v", event, gi, err))
				continue
			}
			if err := manifest.CheckHookMatcher(g.Matcher); err != nil {
				faults = append(faults, fault(cmpLine(lines[gat+"/matcher"], lines[gat]), "hooks.%s[%d].matcher: %v; its hooks are not run", event, gi, err))
				continue
			}
			for hi, rh := range g.Hooks {
				hat := gat + "/hooks/" + strconv.Itoa(hi)
				var sh settingsHook
				if err := json.Unmarshal(rh, &sh); err != nil {
					faults = append(faults, fault(lines[hat], "hooks.%s[%d].hooks[%d]: %v", event, gi, hi, err))
					continue
				}
				if sh.Type != "command" {
					faults = append(faults, fault(lines[hat], "hooks.%s[%d].hooks[%d] has type %q; only \"command\" hooks run here", event, gi, hi, sh.Type))
					continue
				}
				var timeout time.Duration
				if sh.Timeout != nil {
					if *sh.Timeout <= 0 || *sh.Timeout > manifest.MaxHookTimeout {
						faults = append(faults, fault(cmpLine(lines[hat+"/timeout"], lines[hat]), "hooks.%s[%d].hooks[%d].timeout %v: give seconds from 1 to %d", event, gi, hi, *sh.Timeout, manifest.MaxHookTimeout))
						continue
					}
					timeout = time.Duration(*sh.Timeout * float64(time.Second))
				}
				h, err := New(event, g.Matcher, sh.Command, timeout)
				if err != nil {
					faults = append(faults, fault(lines[hat], "hooks.%s[%d].hooks[%d]: %v", event, gi, hi, err))
					continue
				}
				h.File, h.Line, h.Claude = file, lines[hat], true
				hooks = append(hooks, h)
			}
		}
	}
	return hooks, faults
}

func cmpLine(line, orElse int) int {
	if line > 0 {
		return line
	}
	return orElse
}

// errorLine is the line of a JSON syntax error, 0 when it has none.
func errorLine(data []byte, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return lineAt(data, se.Offset)
	case errors.As(err, &te):
		return lineAt(data, te.Offset)
	}
	return 0
}

func lineAt(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}

// jsonLines maps the path of every value of a valid JSON document
// ("/hooks/PreToolUse/0/matcher") to the line it ends on: strings and
// numbers sit on one line, objects and arrays are placed where they open.
func jsonLines(data []byte) map[string]int {
	out := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	_ = walk(dec, data, "", out)
	return out
}

func walk(dec *json.Decoder, data []byte, path string, out map[string]int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	out[path] = lineAt(data, dec.InputOffset())
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			if err := walk(dec, data, path+"/"+strings.ReplaceAll(key, "/", "~1"), out); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walk(dec, data, path+"/"+strconv.Itoa(i), out); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}
