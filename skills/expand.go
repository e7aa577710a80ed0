package skills

import (
	"regexp"
	"strconv"
	"strings"
)

// Instructions is what the model reads when the skill is used: its folder
// (so that the model can open its references and run its scripts) and
// its body, with the placeholders Claude Code defines substituted:
// $ARGUMENTS (args as typed), $ARGUMENTS[N] and $N (the Nth word of args,
// from 0), ${CLAUDE_SKILL_DIR} and ${CLAUDE_SESSION_ID}. Arguments given
// to a body with no placeholder for them follow it on an ARGUMENTS line.
func (s *Skill) Instructions(args, sessionID string) string {
	body, used := substitute(s.Body, args, s.Dir, sessionID)
	body = strings.TrimRight(body, "\n")
	if !used && strings.TrimSpace(args) != "" {
		body += "\n\nARGUMENTS: " + args
	}
	return "Base directory for this skill: " + s.Dir + "\n\n" + body
}

// substitute replaces the placeholders of body; used says whether one of
// them stood for the arguments.
func substitute(body, args, dir, sessionID string) (string, bool) {
	if !strings.Contains(body, "$") {
		return body, false
	}
	words := Words(args)
	word := func(n string) string {
		i, err := strconv.Atoi(n)
		if err != nil || i >= len(words) {
			return ""
		}
		return words[i]
	}
	used := false
	var b strings.Builder
	for i := 0; i < len(body); {
		rest := body[i:]
		if rest[0] != '$' {
			j := strings.IndexByte(rest, '$')
			if j < 0 {
				j = len(rest)
			}
			b.WriteString(rest[:j])
			i += j
			continue
		}
		switch {
		case strings.HasPrefix(rest, "${CLAUDE_SKILL_DIR}"):
			b.WriteString(dir)
			i += len("${CLAUDE_SKILL_DIR}")
		case strings.HasPrefix(rest, "${CLAUDE_SESSION_ID}"):
			b.WriteString(sessionID)
			i += len("${CLAUDE_SESSION_ID}")
		case strings.HasPrefix(rest, "$ARGUMENTS["):
			n := digits(rest[len("$ARGUMENTS["):])
			if n == "" || !strings.HasPrefix(rest[len("$ARGUMENTS[")+len(n):], "]") {
				b.WriteByte('$')
				i++
				continue
			}
			b.WriteString(word(n))
			i += len("$ARGUMENTS[") + len(n) + 1
			used = true
		case strings.HasPrefix(rest, "$ARGUMENTS"):
			b.WriteString(args)
			i += len("$ARGUMENTS")
			used = true
		default:
			n := digits(rest[1:])
			if n == "" {
				b.WriteByte('$')
				i++
				continue
			}
			b.WriteString(word(n))
			i += 1 + len(n)
			used = true
		}
	}
	return b.String(), used
}

func digits(s string) string {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return s[:n]
}

// Words splits arguments as a shell would split plain words: on spaces,
// with '…' and "…" keeping what they enclose together.
func Words(args string) []string {
	var out []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(args); i++ {
		c := args[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}

// Slash splits a prompt of the form "/id args"; ok is false when the
// prompt does not begin with a slash and a word.
func Slash(prompt string) (id, args string, ok bool) {
	p := strings.TrimLeft(prompt, " \t\n")
	if !strings.HasPrefix(p, "/") {
		return "", "", false
	}
	p = p[1:]
	end := strings.IndexAny(p, " \t\n")
	if end < 0 {
		end = len(p)
	}
	id = p[:end]
	if id == "" || strings.ContainsAny(id, "/$") {
		return "", "", false
	}
	return id, strings.TrimSpace(p[end:]), true
}

var mention = regexp.MustCompile(`(^|[^\w$])\$([A-Za-z0-9][A-Za-z0-9_:.-]*[A-Za-z0-9]|[A-Za-z0-9])`)

// Expand turns a prompt the user typed into what the model reads. A
// prompt "/id args" of a skill the user may run becomes the skill's
// instructions for those arguments, headed by the command as typed (as
// Claude Code sends it); in any other prompt, each "$id" mention of such a
// skill (as Codex reads them) adds its instructions after the prompt.
// used are the skills expanded; a prompt that names none is returned as
// it is.
func (s *Set) Expand(prompt, sessionID string) (text string, used []string) {
	if id, args, ok := Slash(prompt); ok {
		if sk, ok := s.Lookup(id); ok && sk.UserInvocable {
			return "<command-message>" + id + "</command-message>\n<command-name>/" + id + "</command-name>\n" +
				"<command-args>" + args + "</command-args>\n\n" + sk.Instructions(args, sessionID), []string{id}
		}
		return prompt, nil
	}
	var b strings.Builder
	for _, m := range mention.FindAllStringSubmatch(prompt, -1) {
		id := m[2]
		sk, ok := s.Lookup(id)
		if !ok || !sk.UserInvocable || contains(used, id) {
			continue
		}
		used = append(used, id)
		b.WriteString("\n\n<skill name=\"" + id + "\">\nThe prompt mentions the skill $" + id + "; its instructions follow.\n\n")
		b.WriteString(sk.Instructions("", sessionID))
		b.WriteString("\n</skill>")
	}
	if len(used) == 0 {
		return prompt, nil
	}
	return prompt + b.String(), used
}
