package conductor

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command rules ("Bash(rm:*)", "Bash(npm test)") are matched against what
// a shell parser sees in a command: every simple command of the script
// (after ;, &&, |, inside $(...), subshells, brace groups, functions), the
// command a wrapper runs (env, sudo, xargs, timeout, find -exec...) and
// the script of sh -c and eval. A deny rule matches a command it cannot
// see through (a name from $VAR or $(...), a brace expansion or glob in a
// name, a shell reading its script from a pipe, a script that does not
// parse): the doubt goes to the refusal. What stays out of reach: the
// code of a script file the command runs (bash x.sh, make, npm test), an
// interpreter's own -c (python -c), and aliases.

// maxScriptDepth bounds sh -c inside sh -c; deeper nesting is refused by
// deny rules rather than followed.
const maxScriptDepth = 8

// wrappers run the rest of their words (after options) as a command.
var wrappers = map[string]bool{
	"env": true, "command": true, "builtin": true, "exec": true, "nohup": true, "time": true,
	"nice": true, "ionice": true, "sudo": true, "doas": true, "xargs": true, "timeout": true,
	"stdbuf": true, "setsid": true, "chrt": true, "taskset": true, "unbuffer": true,
	"watch": true, "strace": true, "ltrace": true, "nsenter": true, "unshare": true,
	"chroot": true, "flock": true, "parallel": true, "find": true, "fakeroot": true,
	"busybox": true, "caffeinate": true, "systemd-run": true, "runuser": true, "script": true,
}

// shells run the word after -c as a script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true, "su": true}

// parseScript parses a command as bash.
func parseScript(cmd string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
}

// ruleWords are the words of a command rule's specifier.
func ruleWords(spec string) []string {
	if f, err := parseScript(spec); err == nil && len(f.Stmts) == 1 {
		if call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Assigns) == 0 {
			if ws, ok := literalWords(call.Args); ok {
				return ws
			}
		}
	}
	return strings.Fields(spec)
}

// literal is the value of w after quote removal, when it has one that
// does not depend on the environment, the file system or another
// command: no parameter, command or arithmetic expansion, no glob or
// brace expansion.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			s, ok := unescape(p.Value, false)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false // $'...' escapes: not worth decoding here
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				s, _ := unescape(lit.Value, true)
				b.WriteString(s)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes of an unquoted (or, with quoted, a
// double-quoted) literal. An unquoted one holding a glob or a brace
// expansion has no single value.
func unescape(s string, quoted bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '\n' {
				continue
			}
			if quoted && !strings.ContainsRune("$`\"\\", rune(s[i])) {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
			continue
		case !quoted && strings.IndexByte("*?[{", c) >= 0:
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

func literalWords(ws []*syntax.Word) ([]string, bool) {
	out := make([]string, len(ws))
	for i, w := range ws {
		s, ok := literal(w)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// scriptDenied reports whether a deny rule of words rule (a prefix rule
// when prefix) covers any command script runs, or cannot be ruled out.
func scriptDenied(rule []string, prefix bool, script string, depth int) bool {
	if depth > maxScriptDepth {
		return true
	}
	f, err := parseScript(script)
	if err != nil {
		return true // what does not parse cannot be ruled out
	}
	denied := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if denied {
			return false
		}
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			denied = callDenied(rule, prefix, call, depth)
		}
		return !denied
	})
	return denied
}

// callDenied checks one simple command: its words, and what it runs.
func callDenied(rule []string, prefix bool, call *syntax.CallExpr, depth int) bool {
	words := make([]string, len(call.Args))
	known := make([]bool, len(call.Args))
	for i, w := range call.Args {
		words[i], known[i] = literal(w)
	}
	return wordsDenied(rule, prefix, words, known, depth)
}

func wordsDenied(rule []string, prefix bool, words []string, known []bool, depth int) bool {
	if len(words) == 0 {
		return false
	}
	if !known[0] {
		return true // the command's name is not known until it runs
	}
	if wordsMatch(rule, prefix, words, known) {
		return true
	}
	name := path.Base(words[0])
	switch {
	case name == "eval":
		for _, k := range known[1:] {
			if !k {
				return true
			}
		}
		return scriptDenied(rule, prefix, strings.Join(words[1:], " "), depth+1)
	case shells[name]:
		for i := 1; i < len(words); i++ {
			if !known[i] {
				return true
			}
			w := words[i]
			if strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "c") {
				if i+1 >= len(words) || !known[i+1] {
					return true
				}
				return scriptDenied(rule, prefix, words[i+1], depth+1)
			}
			if !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+") {
				return false // a script file: out of reach
			}
		}
		return true // the script comes from standard input
	case wrappers[name]:
		// Which of the wrapper's words start the command it runs depends
		// on its options; every later word is tried as the start.
		for i := 1; i < len(words); i++ {
			if wordsDenied(rule, prefix, words[i:], known[i:], depth+1) {
				return true
			}
		}
	}
	return false
}

// wordsMatch compares a command's words with a rule's: the name by its
// last path element (/bin/rm is rm), every compared word known.
func wordsMatch(rule []string, prefix bool, words []string, known []bool) bool {
	if len(words) < len(rule) || (!prefix && len(words) != len(rule)) || len(rule) == 0 {
		return false
	}
	for i, r := range rule {
		if !known[i] {
			return true
		}
		w := words[i]
		if i == 0 {
			w = path.Base(w)
		}
		if w != r {
			return false
		}
	}
	return true
}

// scriptAllowed reports whether an allow rule covers the script: one
// simple command, no redirection, background or assignment, every word
// known, its words the rule's (or, for a prefix rule, starting with
// them).
func scriptAllowed(rule []string, prefix bool, script string) bool {
	f, err := parseScript(script)
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 {
		return false
	}
	words, ok := literalWords(call.Args)
	if !ok || len(words) < len(rule) || (!prefix && len(words) != len(rule)) {
		return false
	}
	return slices.Equal(words[:len(rule)], rule)
}
