package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/policy"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/tool"
)

// Descriptor is a parsed Tier-0 manifest.toml: data only, nothing in it
// runs in-process.
//
//	id = "safety"
//	version = "1.0.0"
//
//	[[command]]
//	name = "deploy"
//	summary = "run the deploy script"
//	exec = "./scripts/deploy.sh"
//
//	[[gate]]
//	event = "tool:before"
//	match-tool = "bash"
//	reason = "no shell in this repository"
//
//	[[interceptor]]
//	match-tool = "bash"
//	set = { timeout = 60 }
//	redact = ['AKIA[0-9A-Z]{16}']
type Descriptor struct {
	ID           string            `toml:"id" json:"id"`
	Version      string            `toml:"version" json:"version,omitempty"`
	Commands     []CommandDecl     `toml:"command" json:"commands,omitempty"`
	Gates        []GateDecl        `toml:"gate" json:"gates,omitempty"`
	Interceptors []InterceptorDecl `toml:"interceptor" json:"interceptors,omitempty"`
	Hooks        []HookDecl        `toml:"hook" json:"hooks,omitempty"` // command hooks: see hookdecl.go
	// Process, when set, makes the addon a Tier-1 subprocess addon (see
	// package addons/rpc); the Tier-0 loader alone refuses it.
	Process *ProcessDecl `toml:"process" json:"process,omitempty"`
	// Sandbox is what the addon's hooks, process and commands may reach
	// when the session confines children; nil grants the least.
	Sandbox *SandboxDecl `toml:"sandbox" json:"sandbox,omitempty"`
}

// SandboxDecl is the [sandbox] table: the grants of an addon's hooks,
// process and commands when the session runs with a sandbox mode on.
// Without it they read the system's folders and the workspace, write only
// a private temp folder and have no network. Relative paths are in the
// workspace; "~/" is the home folder. A write grant may not name a
// protected path (.indusvx, .indus, .mcp.json, .claude/settings*.json,
// .git/hooks, .git/config) nor climb out with "..".
//
//	[sandbox]
//	write = ["build", "~/.cache/mytool"]
//	read = ["~/.nvm"]
//	network = true
type SandboxDecl struct {
	Read    []string `toml:"read" json:"read,omitempty"`
	Write   []string `toml:"write" json:"write,omitempty"`
	Network bool     `toml:"network" json:"network,omitempty"`
}

// ProcessDecl is the [process] table of a Tier-1 addon: the command that
// speaks the addon protocol on its stdin and stdout, the environment
// variables it may see (each must be on the host's allow-list), its
// per-call timeout ("5s"; empty means the host's) and, per gate id ("*"
// for every gate), what a failing gate decides: "deny" (the default, the
// call is refused) or "allow".
//
//	[process]
//	command = ["python3", "gate.py"]
//	env = ["HOME"]
//	timeout = "5s"
//	on_error = { "no-rm" = "allow" }
type ProcessDecl struct {
	Command []string          `toml:"command" json:"command"`
	Env     []string          `toml:"env" json:"env,omitempty"`
	Timeout string            `toml:"timeout" json:"timeout,omitempty"`
	OnError map[string]string `toml:"on_error" json:"onError,omitempty"`

	// Line and EnvLine locate the table and its env key in the file, for
	// faults found after parsing (an env name the host does not allow).
	Line    int `toml:"-" json:"-"`
	EnvLine int `toml:"-" json:"-"`
	// Wait is Timeout parsed; zero when Timeout is empty.
	Wait time.Duration `toml:"-" json:"-"`
}

// MaxProcessTimeout bounds [process] timeout: a call that may take longer
// than ten minutes holds a turn hostage; such work belongs in a command.
const MaxProcessTimeout = 10 * time.Minute

// CommandDecl is one [[command]]: a name (no leading slash), a one-line
// summary and an optional shell command. Without exec the command does
// nothing but still lists.
type CommandDecl struct {
	Name    string `toml:"name" json:"name"`
	Summary string `toml:"summary" json:"summary,omitempty"`
	Exec    string `toml:"exec" json:"exec,omitempty"`
}

// GateDecl is one [[gate]]: on event, refuse with reason; with
// match-tool, only calls of that tool (and never a non-tool event).
type GateDecl struct {
	Event     string `toml:"event" json:"event"`
	MatchTool string `toml:"match-tool" json:"matchTool,omitempty"`
	Reason    string `toml:"reason" json:"reason,omitempty"`
}

// InterceptorDecl is one [[interceptor]]: a declarative rewrite around
// the calls of one tool (match-tool), or of every tool when it is empty.
// Set fixes arguments: each of its fields replaces the argument of that
// name in the call's input object (the tool still validates the result).
// Redact rewrites results: every match of each regular expression (Go
// RE2 syntax) in the result's text is replaced by Replacement, by default
// "[redacted]".
type InterceptorDecl struct {
	MatchTool   string   `toml:"match-tool" json:"matchTool,omitempty"`
	Set         any      `toml:"set" json:"set,omitempty"`
	Redact      []string `toml:"redact" json:"redact,omitempty"`
	Replacement *string  `toml:"replacement" json:"replacement,omitempty"`

	patterns []*regexp.Regexp
	set      json.RawMessage
}

// Parse parses and checks a manifest read from file (used in
// messages only). A problem is a *Fault of kind load naming the file, the
// line and the field.
func Parse(file string, data []byte) (*Descriptor, error) {
	var d Descriptor
	md, err := Decode(file, "manifest", data, &d)
	if err != nil {
		return nil, err
	}
	bad := func(table string, index int, field, msg string) error {
		line := KeyLine(data, table, index, field)
		name := field
		if table != "" {
			name = fmt.Sprintf("%s[%d].%s", table, index+1, field)
		}
		return &addons.Fault{Kind: addons.LoadFault, File: file, Line: line, Msg: fmt.Sprintf("field %s: %s", name, msg)}
	}
	// The fields of a set table are the tool's arguments: any name goes.
	undecoded := slices.DeleteFunc(md.Undecoded(), func(k toml.Key) bool {
		return len(k) > 2 && k[0] == "interceptor" && k[1] == "set"
	})
	if len(undecoded) > 0 {
		k := undecoded[0]
		table, field, index := "", k.String(), -1
		if len(k) > 1 {
			table, field = k[0], k[len(k)-1]
		}
		return nil, &addons.Fault{Kind: addons.LoadFault, File: file, Line: KeyLine(data, table, index, field),
			Msg: fmt.Sprintf("field %s: unknown field; fields are id, version, [[command]] name/summary/exec, [[gate]] event/match-tool/reason, [[interceptor]] match-tool/set/redact/replacement, [[hook]] event/matcher/command/timeout, [process] command/env/timeout/on_error and [sandbox] read/write/network", k.String())}
	}
	if strings.TrimSpace(d.ID) == "" {
		return nil, bad("", -1, "id", "must be set: faults and listings name the addon by it")
	}
	if strings.ContainsFunc(d.ID, isSpaceOrSlash) {
		return nil, bad("", -1, "id", fmt.Sprintf("%q must not contain spaces or slashes", d.ID))
	}
	for i, c := range d.Commands {
		switch {
		case strings.TrimSpace(c.Name) == "":
			return nil, bad("command", i, "name", "must be set")
		case strings.HasPrefix(c.Name, "/"):
			return nil, bad("command", i, "name", fmt.Sprintf("%q: write the name without the leading slash", c.Name))
		case strings.ContainsFunc(c.Name, isSpaceOrSlash):
			return nil, bad("command", i, "name", fmt.Sprintf("%q must be one word", c.Name))
		}
	}
	for i, g := range d.Gates {
		if strings.TrimSpace(g.Event) == "" {
			return nil, bad("gate", i, "event", "must be set, such as \"tool:before\"")
		}
		if _, err := addons.ParseEvent(g.Event); err != nil {
			return nil, bad("gate", i, "event", err.Error())
		}
	}
	for i := range d.Interceptors {
		ic := &d.Interceptors[i]
		set, isTable := ic.Set.(map[string]any)
		if ic.Set != nil && !isTable {
			return nil, bad("interceptor", i, "set", "must be a table of arguments, such as set = { timeout = 60 }")
		}
		if len(set) == 0 && len(ic.Redact) == 0 {
			return nil, bad("interceptor", i, "set", "an interceptor needs set (arguments to fix) or redact (patterns to hide in results), or both")
		}
		if len(set) > 0 {
			b, err := json.Marshal(ic.Set)
			if err != nil {
				return nil, bad("interceptor", i, "set", "cannot be written as JSON: "+err.Error())
			}
			ic.set = b
		}
		for _, p := range ic.Redact {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, bad("interceptor", i, "redact", fmt.Sprintf("%q is not a valid regular expression: %v", p, err))
			}
			if re.MatchString("") {
				return nil, bad("interceptor", i, "redact", fmt.Sprintf("%q matches the empty string, so it would rewrite every result; make it match at least one character", p))
			}
			ic.patterns = append(ic.patterns, re)
		}
	}
	for i := range d.Hooks {
		if field, msg := d.Hooks[i].check(); field != "" {
			return nil, bad("hook", i, field, msg)
		}
		d.Hooks[i].Line = KeyLine(data, "hook", i, "\x00") // the header: no key is NUL
	}
	if d.Process != nil {
		if err := checkProcess(d.Process, data, bad); err != nil {
			return nil, err
		}
	}
	if d.Sandbox != nil {
		if err := checkSandbox(d.Sandbox, data); err != nil {
			err.File = file
			return nil, err
		}
	}
	return &d, nil
}

// envName is what an environment variable name in [process] env may be.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkProcess validates the [process] table and fills in its lines and
// parsed timeout.
func checkProcess(p *ProcessDecl, data []byte, bad func(table string, index int, field, msg string) error) error {
	field := func(name, msg string) error {
		err := bad("", -1, name, msg).(*addons.Fault)
		err.Msg = "field process." + strings.TrimPrefix(err.Msg, "field ")
		if l := KeyLine(data, "process", -1, name); l > 0 {
			err.Line = l
		}
		return err
	}
	p.Line = KeyLine(data, "process", -1, "command")
	p.EnvLine = KeyLine(data, "process", -1, "env")
	if len(p.Command) == 0 || strings.TrimSpace(p.Command[0]) == "" {
		return field("command", `must name the program and its arguments, such as ["python3", "addon.py"]`)
	}
	for _, n := range p.Env {
		if !envName.MatchString(n) {
			return field("env", fmt.Sprintf("%q is not a variable name: write names only, such as \"HOME\", never NAME=value", n))
		}
	}
	if p.Timeout != "" {
		w, err := time.ParseDuration(p.Timeout)
		if err != nil || w <= 0 || w > MaxProcessTimeout {
			return field("timeout", fmt.Sprintf("%q must be a duration above zero and at most %v, such as \"5s\"", p.Timeout, MaxProcessTimeout))
		}
		p.Wait = w
	}
	for id, v := range p.OnError {
		if v != "allow" && v != "deny" {
			return field("on_error", fmt.Sprintf("gate %q: %q must be \"allow\" (a failing gate lets the call through) or \"deny\" (it refuses the call)", id, v))
		}
	}
	return nil
}

func isSpaceOrSlash(r rune) bool { return r == '/' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// moduleTier is what a bare module file or package entry needs.
const moduleTier = "Tier 1 (a subprocess JSON-RPC host)"

// Loader is the Tier-0 loader: it reads a folder's manifest.toml
// (or the file itself) and turns it into an addon whose commands run
// their exec through the session's exec handle and whose gates are rules.
// A module file is refused with a fault naming the tier it needs.
type Loader struct {
	// Hooks registers a manifest's [[hook]] tables; nil leaves them
	// unregistered (they are still parsed and checked).
	Hooks HookBinder
}

var _ addons.Loader = Loader{}

// Load reads the addon at path.
func (l Loader) Load(_ context.Context, path string) (*addons.Addon, error) {
	file := path
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		file = filepath.Join(path, addons.ManifestFile)
	} else if addons.IsModule(filepath.Base(path)) {
		return nil, &addons.Fault{Kind: addons.LoadFault, File: path,
			Msg: fmt.Sprintf("a %s module needs %s: put it in a folder with a %s whose [process] command runs it (such as command = [\"node\", %q]) and speaks the addon protocol, or describe the addon in Tier-0 data", filepath.Ext(path), moduleTier, addons.ManifestFile, filepath.Base(path))}
	} else if filepath.Base(path) != addons.ManifestFile {
		return nil, &addons.Fault{Kind: addons.LoadFault, File: path, Msg: fmt.Sprintf("not an addon: expected a folder holding %s", addons.ManifestFile)}
	}
	data, err := ReadFile(file)
	if err != nil {
		return nil, &addons.Fault{Kind: addons.LoadFault, File: file, Msg: "cannot read the manifest", Err: err}
	}
	d, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	if d.Process != nil {
		// Loading only the Tier-0 part would drop the process's gates
		// without a word, which fails open.
		return nil, &addons.Fault{Kind: addons.LoadFault, File: file, Line: d.Process.Line,
			Msg: "a [process] addon needs the Tier-1 loader (package addons/rpc); this host uses the Tier-0 loader only"}
	}
	return l.Declarative(file, d), nil
}

// Declarative is the data-only part of d, read from file, as this loader
// registers it: the commands, gates and interceptors of d and, with a
// Hooks binder, its hooks. The Tier-1 loader builds on it for a manifest
// that also has a [process] table.
func (l Loader) Declarative(file string, d *Descriptor) *addons.Addon {
	return withHooks(d.Addon(), l.Hooks, file, d.Hooks)
}

// Addon turns the descriptor into an addon. Its register function only
// records the declared commands and gates.
func (d *Descriptor) Addon() *addons.Addon {
	return &addons.Addon{ID: addons.ID(d.ID), Version: d.Version, Register: func(api addons.API) error {
		for _, c := range d.Commands {
			api.AddCommand(c.Name, c.Summary, execCommand(c.Exec))
		}
		for _, g := range d.Gates {
			e, err := addons.ParseEvent(g.Event)
			if err != nil {
				return err
			}
			reason := g.Reason
			if reason == "" {
				reason = fmt.Sprintf("refused by addon %s", api.ID())
			}
			h := addons.Gater(gateRule(g.MatchTool, reason))
			if g.MatchTool != "" && (e == addons.ToolBefore || e == addons.ToolAfter) {
				api.OnTool(e, g.MatchTool, h)
			} else {
				api.On(e, h)
			}
			addons.DescribeGate(api, addons.GateInfo{Event: e, Tool: g.MatchTool, Reason: reason})
		}
		for _, ic := range d.Interceptors {
			api.InterceptTool(addons.Match{Tool: ic.MatchTool}, ic.enter(), ic.exit())
		}
		return nil
	}}
}

// enter returns the stage that applies Set, or nil.
func (ic *InterceptorDecl) enter() func(context.Context, addons.EnterContext) addons.EnterOutcome {
	if len(ic.set) == 0 {
		return nil
	}
	var fixed map[string]json.RawMessage
	if err := json.Unmarshal(ic.set, &fixed); err != nil {
		return nil // Parse made ic.set from a map: cannot happen
	}
	return func(_ context.Context, ec addons.EnterContext) addons.EnterOutcome {
		var in map[string]json.RawMessage
		if len(ec.Args) > 0 {
			if err := json.Unmarshal(ec.Args, &in); err != nil {
				// Not an object: leave it to the tool, which says what is wrong.
				return addons.Proceed()
			}
		}
		if in == nil {
			in = make(map[string]json.RawMessage, len(fixed))
		}
		for k, v := range fixed {
			in[k] = v
		}
		out, err := json.Marshal(in)
		if err != nil {
			return addons.Proceed()
		}
		return addons.RewriteArgs(out)
	}
}

func (ic *InterceptorDecl) redact(s, with string) string {
	for _, re := range ic.patterns {
		s = re.ReplaceAllLiteralString(s, with)
	}
	return s
}

// redactJSON redacts the strings inside a JSON value (keys and values),
// so that the value stays valid JSON; ok is false when nothing changed.
func (ic *InterceptorDecl) redactJSON(raw json.RawMessage, with string) (json.RawMessage, bool) {
	if !slices.ContainsFunc(ic.patterns, func(re *regexp.Regexp) bool { return re.Match(raw) }) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers keep their exact digits
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return ic.redact(x, with)
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[ic.redact(k, with)] = walk(e)
			}
			return out
		}
		return v
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		return nil, false
	}
	return out, true
}

// exit returns the stage that applies Redact, or nil.
func (ic *InterceptorDecl) exit() func(context.Context, addons.ExitContext) addons.ExitOutcome {
	if len(ic.patterns) == 0 {
		return nil
	}
	with := "[redacted]"
	if ic.Replacement != nil {
		with = *ic.Replacement
	}
	return func(_ context.Context, xc addons.ExitContext) addons.ExitOutcome {
		changed := false
		blocks := slices.Clone(xc.Result.Blocks)
		for i := range blocks {
			switch b := &blocks[i]; b.Kind {
			case tool.KindText:
				if text := ic.redact(b.Text, with); text != b.Text {
					b.Text, changed = text, true
				}
			case tool.KindJSON:
				if out, ok := ic.redactJSON(b.JSON, with); ok {
					b.JSON, changed = out, true
				}
			}
		}
		if !changed {
			return addons.Keep()
		}
		return addons.RewriteResult(tool.Result{Blocks: blocks, IsError: xc.Result.IsError})
	}
}

// gateRule is a declarative gate: without a tool it stops every time;
// with one, only a call of that tool, and never a non-tool event.
func gateRule(match, reason string) func(context.Context, addons.Payload) addons.Decision {
	return func(_ context.Context, p addons.Payload) addons.Decision {
		if match == "" {
			return addons.Decision{Stop: true, Reason: reason}
		}
		if tp, ok := p.(addons.ToolPayload); ok && tp.Name == match {
			return addons.Decision{Stop: true, Reason: reason}
		}
		return addons.Decision{}
	}
}

// positional finds a mention of the positional parameters.
var positional = regexp.MustCompile(`\$(@|\*|[1-9]|\{[@*1-9])`)

// ExecWithArgs is the shell text a manifest command runs: exec as
// written when it mentions the positional parameters ($@, $*, $1..$9),
// else exec followed by "$@", so the user's arguments reach the command
// as separate words. The arguments themselves are never part of the text.
func ExecWithArgs(exec string) string {
	if positional.MatchString(exec) {
		return exec
	}
	return exec + ` "$@"`
}

func execCommand(exec string) func(context.Context, addons.CommandContext) (addons.ExecOutcome, error) {
	return func(ctx context.Context, cc addons.CommandContext) (addons.ExecOutcome, error) {
		if strings.TrimSpace(exec) == "" {
			return addons.ExecOutcome{}, nil
		}
		if cc.Handles == nil || cc.Handles.Exec == nil {
			return addons.ExecOutcome{}, errors.New("this host offers no exec handle, so the command cannot run")
		}
		return cc.Handles.Exec(ctx, ExecWithArgs(exec), cc.Args)
	}
}

// checkSandbox refuses grants that are empty, climb out of the workspace
// with "..", or name a protected path.
func checkSandbox(sb *SandboxDecl, data []byte) *addons.Fault {
	for _, list := range []struct {
		field string
		paths []string
	}{{"read", sb.Read}, {"write", sb.Write}} {
		for _, raw := range list.paths {
			p := policy.ScrubInvisible(raw)
			msg := ""
			rel := filepath.ToSlash(filepath.Clean(p))
			switch {
			case p == "":
				msg = "an empty path grants nothing; remove it"
			case !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") && (rel == ".." || strings.HasPrefix(rel, "../")):
				msg = fmt.Sprintf("%q climbs out of the workspace; write an absolute path or ~/... instead", raw)
			case list.field == "write" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") && jail.IsProtected(rel):
				msg = fmt.Sprintf("%q is a protected path (%s): no addon may write it", raw, strings.Join(jail.Protected(), ", "))
			}
			if msg != "" {
				return &addons.Fault{Kind: addons.LoadFault, Line: KeyLine(data, "sandbox", -1, list.field), Msg: fmt.Sprintf("field sandbox.%s: %s", list.field, msg)}
			}
		}
	}
	return nil
}

// Grant is the [sandbox] table of one manifest; Sandbox is nil
// when it has none (it grants the least).
type Grant struct {
	File    string
	ID      addons.ID
	Sandbox *SandboxDecl
}

// Grants returns the grants of every manifest found by d that
// parses, in discovery order. Like [Hooks] it loads nothing.
func Grants(d addons.Discovery) []Grant {
	var out []Grant
	for _, src := range addons.Sources(d) {
		if file, desc := read(src.Path); desc != nil {
			out = append(out, Grant{File: file, ID: addons.ID(desc.ID), Sandbox: desc.Sandbox})
		}
	}
	return out
}
