package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/indusagi/induscode/internal/jail"
)

// Parse parses one config file's contents. file names it in warnings
// and anchors a relative "cwd". Both layouts are read: {"servers": [...] or
// {...}} and {"mcpServers": {...}} (Claude Code, Cursor and others).
// lookupEnv resolves ${VAR}, ${VAR:-default}, ${VAR:+alt} and
// ${VAR:?message} (as the shell does; see expander) in command, args, env,
// cwd, url and headers; nil means no variables are set. A bad row is skipped
// with a warning; a malformed file yields no servers and one warning.
func Parse(data []byte, file string, lookupEnv func(string) (string, bool)) ([]Server, []Warning) {
	if lookupEnv == nil {
		lookupEnv = func(string) (string, bool) { return "", false }
	}
	return parser{file: file, lookupEnv: lookupEnv}.parse(data)
}

// ParseAsWritten parses one config file's contents as
// [Parse] does but expands nothing: command, args, env, cwd, url
// and headers keep their ${VAR} as written (and cwd is not anchored), so
// a person approving the file sees what it says, and no secret a
// variable holds.
func ParseAsWritten(data []byte, file string) ([]Server, []Warning) {
	return parser{file: file, asWritten: true}.parse(data)
}

func (p parser) parse(data []byte) ([]Server, []Warning) {
	top, err := members(data)
	if err != nil {
		return nil, []Warning{{File: p.file, Msg: fmt.Sprintf("not a JSON object (%v); no servers are mounted from it", err)}}
	}
	found := false
	for _, m := range top {
		if m.name != "servers" && m.name != "mcpServers" {
			continue
		}
		found = true
		p.servers(m.name, m.raw)
	}
	if !found {
		p.warn("", `no "servers" or "mcpServers" field; nothing to mount`)
	}
	return p.out, p.warnings
}

type parser struct {
	file      string
	lookupEnv func(string) (string, bool)
	asWritten bool // expand nothing (ParseAsWritten)
	out       []Server
	warnings  []Warning
}

func (p *parser) warn(row, format string, args ...any) {
	p.warnings = append(p.warnings, Warning{File: p.file, Row: row, Msg: fmt.Sprintf(format, args...)})
}

// servers reads the array form (names in a "name" field) or the object
// form (names are the keys).
func (p *parser) servers(field string, raw json.RawMessage) {
	switch firstByte(raw) {
	case '[':
		var rows []json.RawMessage
		if err := json.Unmarshal(raw, &rows); err != nil {
			p.warn(field, "malformed array: %v", err)
			return
		}
		for i, r := range rows {
			p.row(fmt.Sprintf("%s[%d]", field, i), "", r)
		}
	case '{':
		ms, err := members(raw)
		if err != nil {
			p.warn(field, "malformed object: %v", err)
			return
		}
		for _, m := range ms {
			p.row(fmt.Sprintf("%s[%q]", field, m.name), m.name, m.raw)
		}
	default:
		p.warn(field, "must be an array of servers or an object keyed by server name")
	}
}

// rawRow is a server row as written.
type rawRow struct {
	Name           *string         `json:"name"`
	Type           string          `json:"type"`
	Transport      string          `json:"transport"`
	Command        string          `json:"command"`
	Args           []any           `json:"args"`
	Env            json.RawMessage `json:"env"`
	Cwd            string          `json:"cwd"`
	URL            string          `json:"url"`
	Headers        json.RawMessage `json:"headers"`
	Tools          json.RawMessage `json:"tools"`
	Enabled        *bool           `json:"enabled"`
	Disabled       bool            `json:"disabled"`
	StartupTimeout json.RawMessage `json:"startupTimeout"`
	CallTimeout    json.RawMessage `json:"callTimeout"`
	Sandbox        string          `json:"sandbox"`
	SandboxNetwork bool            `json:"sandboxNetwork"`
}

func (p *parser) row(id, key string, raw json.RawMessage) {
	if firstByte(raw) != '{' {
		p.warn(id, "a server must be a JSON object; skipped")
		return
	}
	var r rawRow
	if err := json.Unmarshal(raw, &r); err != nil {
		p.warn(id, "malformed server (%v); skipped", err)
		return
	}
	if (r.Enabled != nil && !*r.Enabled) || r.Disabled {
		return
	}
	name := key
	if name == "" && r.Name != nil {
		name = *r.Name
	}
	name = strings.TrimSpace(name)
	if name == "" {
		p.warn(id, `server has no name; give it a non-empty "name" (or key); skipped`)
		return
	}
	s := Server{Name: name, Source: p.file, Row: id}
	kind := strings.ToLower(strings.TrimSpace(r.Type))
	if kind == "" {
		kind = strings.ToLower(strings.TrimSpace(r.Transport))
	}
	switch kind {
	case "":
		switch {
		case r.URL != "":
			// What Claude Code and Cursor users write for a current
			// server; an SSE-only server is found by the fallback.
			s.Transport, s.DetectTransport = StreamableHTTP, true
		case r.Command != "":
			s.Transport = Stdio
		}
	case "stdio":
		s.Transport = Stdio
	case "sse":
		s.Transport = SSE
	case "http", "streamable-http", "streamable_http", "streamablehttp":
		s.Transport = StreamableHTTP
	default:
		p.warn(id, "unknown type %q for server %q (want stdio, sse or http); skipped", r.Type, name)
		return
	}
	exp := expander{lookup: p.lookupEnv, asWritten: p.asWritten}
	switch s.Transport {
	case Stdio:
		if r.Command == "" {
			p.warn(id, `server %q runs over stdio but has no "command"; skipped`, name)
			return
		}
		s.Command = exp.expand(r.Command)
		for i, a := range r.Args {
			str, ok := a.(string)
			if !ok {
				p.warn(id, "args[%d] of server %q is not a string (%v); dropped", i, name, a)
				continue
			}
			s.Args = append(s.Args, exp.expand(str))
		}
		s.Env = p.pairs(id, "env", r.Env, &exp)
		mode, err := jail.ParseMode(r.Sandbox)
		if err != nil {
			// Never run unconfined a server that asked for a sandbox.
			p.warn(id, "server %q: %v; skipped", name, err)
			return
		}
		if mode != jail.Off {
			s.Sandbox, s.SandboxNetwork = mode, r.SandboxNetwork
		}
		if r.Cwd != "" {
			s.Dir = exp.expand(r.Cwd)
			if !filepath.IsAbs(s.Dir) && !p.asWritten {
				s.Dir = filepath.Join(filepath.Dir(p.file), s.Dir)
			}
		}
	case SSE, StreamableHTTP:
		if r.URL == "" {
			p.warn(id, `server %q uses %s but has no "url"; skipped`, name, s.Transport)
			return
		}
		s.URL = exp.expand(r.URL)
		s.Headers = p.pairs(id, "headers", r.Headers, &exp)
		if r.Command != "" && kind == "" {
			p.warn(id, `server %q has both "url" and "command"; set "type" to choose, using the url`, name)
		}
	default:
		p.warn(id, `server %q has neither "url" nor "command"; skipped`, name)
		return
	}
	if exp.err != "" {
		p.warn(id, "server %q is skipped: %s", name, exp.err)
		return
	}
	for _, v := range exp.missing {
		p.warn(id, "server %q uses ${%s}, which is not set; it expands to an empty string (write ${%s:-default} to give one)", name, v, v)
	}
	filter, err := parseToolFilter(r.Tools)
	if err != nil {
		p.warn(id, "server %q: %v; skipped", name, err)
		return
	}
	s.Tools = filter
	s.StartupTimeout = p.duration(id, "startupTimeout", r.StartupTimeout)
	s.CallTimeout = p.duration(id, "callTimeout", r.CallTimeout)
	p.out = append(p.out, s)
}

// pairs reads an object of strings in declaration order. Numbers and
// booleans are kept as their JSON text; other values are dropped.
func (p *parser) pairs(id, field string, raw json.RawMessage, exp *expander) []Pair {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	ms, err := members(raw)
	if err != nil {
		p.warn(id, "%s must be an object of strings (%v); ignored", field, err)
		return nil
	}
	out := make([]Pair, 0, len(ms))
	for _, m := range ms {
		var v any
		_ = json.Unmarshal(m.raw, &v)
		switch x := v.(type) {
		case string:
			out = append(out, Pair{m.name, exp.expand(x)})
		case float64, bool:
			out = append(out, Pair{m.name, string(bytes.TrimSpace(m.raw))})
		default:
			p.warn(id, "%s[%q] is not a string; dropped", field, m.name)
		}
	}
	return out
}

// duration reads a timeout: a number of milliseconds or a Go duration
// string ("10s", "1m30s"). Absent or invalid means the default.
func (p *parser) duration(id, field string, raw json.RawMessage) time.Duration {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0
	}
	var d time.Duration
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil || v <= 0 {
			p.warn(id, "%s %q is not a positive duration like \"10s\"; using the default", field, s)
			return 0
		}
		d = v
	} else if ms, err := strconv.ParseFloat(string(raw), 64); err == nil && ms > 0 && ms < float64(maxConfigTimeout/time.Millisecond) {
		d = time.Duration(ms * float64(time.Millisecond))
	} else {
		p.warn(id, "%s must be milliseconds or a duration string like \"10s\"; using the default", field)
		return 0
	}
	if d > maxConfigTimeout {
		p.warn(id, "%s %v is over the %v limit; using the limit", field, d, maxConfigTimeout)
		d = maxConfigTimeout
	}
	return d
}

// maxConfigTimeout caps configured timeouts: a day is longer than any call
// should wait, and the cap keeps a typo ("6000000000") from meaning never.
const maxConfigTimeout = 24 * time.Hour

// member is one name and raw value of a JSON object, in order.
type member struct {
	name string
	raw  json.RawMessage
}

// members reads a JSON object keeping its member order, which encoding/json
// maps lose. A repeated name keeps its first position and its last value,
// as JavaScript does.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("expected an object")
	}
	var out []member
	at := make(map[string]int)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if i, dup := at[name]; dup {
			out[i].raw = v
			continue
		}
		at[name] = len(out)
		out = append(out, member{name, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the object")
	}
	return out, nil
}

func firstByte(raw []byte) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// expander expands variables the way a POSIX shell expands parameters in
// braces, remembering unset names and the first required one that is
// missing:
//
//	${VAR}          the value; an unset VAR expands to nothing, with a warning
//	${VAR:-word}    word when VAR is unset or empty (${VAR-word}: unset only)
//	${VAR:+word}    word when VAR is set and not empty, else nothing (${VAR+word}: set)
//	${VAR:?message} the value; when VAR is unset or empty the row fails with
//	                message (${VAR?message}: unset only)
//
// ${VAR:=word} is taken as ${VAR:-word} (nothing is assigned). word and
// message may hold ${...} themselves, expanded only when used. Text that is
// not one of these forms (unterminated, no valid name) is kept as written.
type expander struct {
	lookup    func(string) (string, bool)
	asWritten bool // return every value as written
	missing   []string
	err       string // the first ${VAR:?message} that failed
	depth     int
}

// maxExpandDepth bounds nesting of ${...} inside defaults: real configs
// nest once or twice, and the bound keeps a crafted file cheap to parse.
const maxExpandDepth = 8

func (e *expander) expand(s string) string {
	if e.asWritten || !strings.Contains(s, "${") {
		return s
	}
	var sb strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		end := closingBrace(s, i+2)
		if end < 0 {
			break // unterminated: kept as written
		}
		sb.WriteString(s[:i])
		sb.WriteString(e.subst(s[i+2:end], s[i:end+1]))
		s = s[end+1:]
	}
	sb.WriteString(s)
	return sb.String()
}

// closingBrace returns the index of the '}' that closes a "${" whose body
// starts at from, counting nested "${", or -1.
func closingBrace(s string, from int) int {
	depth := 1
	for j := from; j < len(s); j++ {
		switch {
		case s[j] == '$' && j+1 < len(s) && s[j+1] == '{':
			depth++
			j++
		case s[j] == '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// subst expands one ${expr}; literal is the whole text, kept when expr is
// not a form the expander knows.
func (e *expander) subst(expr, literal string) string {
	n := 0
	for n < len(expr) && (expr[n] == '_' || 'a' <= expr[n] && expr[n] <= 'z' || 'A' <= expr[n] && expr[n] <= 'Z' || n > 0 && '0' <= expr[n] && expr[n] <= '9') {
		n++
	}
	name, rest := expr[:n], expr[n:]
	if name == "" {
		return literal
	}
	op, word := "", ""
	switch {
	case rest == "":
	case len(rest) >= 2 && rest[0] == ':' && strings.ContainsRune("-+?=", rune(rest[1])):
		op, word = rest[:2], rest[2:]
	case strings.ContainsRune("-+?=", rune(rest[0])):
		op, word = rest[:1], rest[1:]
	default:
		return literal
	}
	v, set := e.lookup(name)
	usable := set // the test of the form without ':'
	if strings.HasPrefix(op, ":") {
		usable = set && v != ""
	}
	switch op {
	case "":
		if !set && !slices.Contains(e.missing, name) {
			e.missing = append(e.missing, name)
		}
		return v
	case ":-", "-", ":=", "=":
		if usable {
			return v
		}
		return e.nested(word)
	case ":+", "+":
		if usable {
			return e.nested(word)
		}
		return ""
	default: // ":?", "?"
		if usable {
			return v
		}
		if e.err == "" {
			what := "is not set"
			if set {
				what = "is empty"
			}
			msg := strings.TrimSpace(e.nested(word))
			if msg == "" {
				msg = "the config requires it"
			}
			e.err = fmt.Sprintf("${%s} %s: %s", name, what, msg)
		}
		return ""
	}
}

// nested expands a default, alternative or message, up to maxExpandDepth
// levels deep; deeper text is kept as written.
func (e *expander) nested(word string) string {
	if e.depth >= maxExpandDepth {
		return word
	}
	e.depth++
	defer func() { e.depth-- }()
	return e.expand(word)
}
