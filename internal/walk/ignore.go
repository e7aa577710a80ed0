package walk

import (
	"bytes"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ruleKind says how a rule is matched; the literal kinds skip the glob
// engine, which matters because every directory entry is checked against
// every rule of every ignore file above it.
type ruleKind uint8

const (
	kindGlob   ruleKind = iota // doublestar match of glob
	kindName                   // base name equals lit
	kindSuffix                 // base name ends with lit ("*.log")
	kindPath                   // path relative to the ignore file's directory equals lit
)

// rule is one pattern line of an ignore file, in gitignore syntax.
type rule struct {
	glob     string // doublestar pattern; matched against rel (anchored) or the base name
	lit      string // for the literal kinds
	kind     ruleKind
	negate   bool // "!pattern": a match re-includes
	dirOnly  bool // "pattern/": matches directories only
	anchored bool // contains a slash: relative to the ignore file's directory
}

// parseRule parses one line of a gitignore-style file. ok is false for
// blank lines, comments and patterns that cannot match anything (or that
// the glob engine rejects, which git would treat as matching nothing).
//
// The rules, after gitignore(5): '#' starts a comment and "\#" escapes it;
// trailing spaces are dropped unless escaped; '!' negates and "\!" escapes
// it; a trailing '/' restricts the pattern to directories; a '/' at the
// start or in the middle anchors the pattern to the ignore file's
// directory, otherwise it matches a base name at any depth; '*' and '?'
// do not cross '/', "**/" spans directories and a trailing "/**" means
// everything inside.
func parseRule(line string) (rule, bool) { return parseRuleSyntax(line, false) }

// parseRuleSyntax is parseRule; with braces set, {a,b} is alternation as
// in ripgrep's --glob, not literal text as in gitignore.
func parseRuleSyntax(line string, braces bool) (rule, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return rule{}, false
	}
	var r rule
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasPrefix(line, "/") {
		r.anchored = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return rule{}, false
	}
	if strings.Contains(line, "/") {
		r.anchored = true
	}
	// A leading "**/" on an otherwise slash-free pattern means "at any
	// depth", which is what an unanchored pattern already does.
	if rest, ok := strings.CutPrefix(line, "**/"); ok && rest != "" && !strings.Contains(rest, "/") {
		r.anchored = false
		line = rest
	}
	if !hasGlobMeta(line) {
		r.lit = line
		r.kind = kindName
		if r.anchored {
			r.kind = kindPath
		}
		return r, true
	}
	if !r.anchored && line[0] == '*' && !hasGlobMeta(line[1:]) {
		r.lit = line[1:]
		r.kind = kindSuffix
		return r, true
	}
	r.glob = translateGlob(line, braces)
	if !doublestar.ValidatePattern(r.glob) {
		return rule{}, false
	}
	return r, true
}

// trimTrailingSpaces drops trailing spaces that are not escaped with a
// backslash (an even run of backslashes escapes only itself).
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		i := len(s) - 1
		n := 0
		for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 1 {
			return s
		}
		s = s[:i]
	}
	return s
}

// hasGlobMeta reports whether s uses any glob syntax (or an escape, which
// the literal fast paths do not interpret).
func hasGlobMeta(s string) bool { return strings.ContainsAny(s, `*?[\{}`) }

// translateGlob turns gitignore glob syntax into doublestar syntax. The two
// agree on '*', '?', "**", classes and backslash escapes; they differ on
// braces (literal in git, alternation in doublestar) and on a trailing
// "/**" (git: everything inside, not the directory itself).
func translateGlob(p string, braces bool) string {
	var sb strings.Builder
	sb.Grow(len(p) + 4)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			sb.WriteByte(c)
			sb.WriteByte(p[i+1])
			i++
		case (c == '{' || c == '}') && !braces:
			sb.WriteByte('\\')
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	g := sb.String()
	if strings.HasSuffix(g, "/**") {
		g += "/*"
	}
	return g
}

// match reports whether the rule matches an entry. rel is the entry's path
// relative to the ignore file's directory, name its base name.
func (r *rule) match(rel, name string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	switch r.kind {
	case kindName:
		return name == r.lit
	case kindSuffix:
		return strings.HasSuffix(name, r.lit)
	case kindPath:
		return rel == r.lit
	}
	if r.anchored {
		return doublestar.MatchUnvalidated(r.glob, rel)
	}
	return doublestar.MatchUnvalidated(r.glob, name)
}

// verdict is what a set of rules says about an entry.
type verdict uint8

const (
	noVerdict verdict = iota // no rule matched
	ignoreIt                 // the last matching rule excludes the entry
	keepIt                   // the last matching rule is a negation
)

// Rules is the parsed content of one ignore file.
type Rules struct {
	dir   string // absolute directory the patterns are relative to
	rules []rule
	// names indexes kindName rules by name, so a long list of plain
	// names costs one map lookup per entry.
	names map[string][]int
	// others lists the indexes of every other rule, in file order.
	others []int
}

// parseRules parses the text of an ignore file found in dir.
func parseRules(dir string, text []byte) *Rules { return parseRuleLines(dir, text, false) }

// parseRuleLines parses pattern lines; braces selects glob alternation.
func parseRuleLines(dir string, text []byte, braces bool) *Rules {
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	rs := &Rules{dir: dir}
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		r, ok := parseRuleSyntax(string(line), braces)
		if !ok {
			continue
		}
		idx := len(rs.rules)
		rs.rules = append(rs.rules, r)
		if r.kind == kindName {
			if rs.names == nil {
				rs.names = make(map[string][]int)
			}
			rs.names[r.lit] = append(rs.names[r.lit], idx)
		} else {
			rs.others = append(rs.others, idx)
		}
	}
	if len(rs.rules) == 0 {
		return nil
	}
	return rs
}

// match applies the set to an entry: the last rule in file order that
// matches decides.
func (rs *Rules) match(rel, name string, isDir bool) verdict {
	best := -1
	for _, i := range rs.names[name] {
		if i > best && rs.rules[i].match(rel, name, isDir) {
			best = i
		}
	}
	for k := len(rs.others) - 1; k >= 0; k-- {
		i := rs.others[k]
		if i < best {
			break
		}
		if rs.rules[i].match(rel, name, isDir) {
			best = i
			break
		}
	}
	switch {
	case best < 0:
		return noVerdict
	case rs.rules[best].negate:
		return keepIt
	}
	return ignoreIt
}
