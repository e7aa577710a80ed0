package approval

import (
	"os"
	"path/filepath"
	"strings"
)

// CommandFiles are the files a command runs or reads by name, as absolute
// paths: its program when written as a path (a bare name is looked up in
// PATH, the user's), and each argument that looks like a path (it holds
// a slash, ends in an extension, or names a file in cwd). A flag's value
// (--config=./c.json) counts as an argument. cwd anchors relative paths.
func CommandFiles(words []string, cwd string) []string {
	var out []string
	for i, w := range words {
		if strings.HasPrefix(w, "-") {
			_, v, ok := strings.Cut(w, "=")
			if !ok {
				continue
			}
			w = v
		}
		if w == "" || strings.Contains(w, "://") || strings.HasPrefix(w, "~") {
			continue
		}
		if !pathLike(w, cwd, i == 0) {
			continue
		}
		if !filepath.IsAbs(w) {
			w = filepath.Join(cwd, w)
		}
		out = append(out, filepath.Clean(w))
	}
	return out
}

// hasExtension reports whether w ends in a dot and one to eight ASCII
// letters or digits (".py", ".tar"): a loop rather than a regular
// expression, which every program importing this package would compile
// at start.
func hasExtension(w string) bool {
	dot := strings.LastIndexByte(w, '.')
	if dot < 0 {
		return false
	}
	ext := w[dot+1:]
	if len(ext) < 1 || len(ext) > 8 {
		return false
	}
	for i := 0; i < len(ext); i++ {
		c := ext[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

func pathLike(w, cwd string, program bool) bool {
	if strings.ContainsRune(w, '/') {
		return true
	}
	if program {
		return false
	}
	if hasExtension(w) {
		return true
	}
	fi, err := os.Lstat(filepath.Join(cwd, w))
	return err == nil && !fi.IsDir()
}

// ShellWords splits shell text into words the way a reader of the command
// sees them, best effort: quotes group, a backslash escapes, and the
// operators ; & | < > ( ) ` end a word. $NAME and ${NAME} of vars are
// replaced by their values; other variables are kept as written.
func ShellWords(text string, vars map[string]string) []string {
	var words []string
	var cur strings.Builder
	in := false
	flush := func() {
		if in {
			words = append(words, cur.String())
		}
		cur.Reset()
		in = false
	}
	var quote rune
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\' && i+1 < len(rs) && quote == 0:
			i++
			cur.WriteRune(rs[i])
			in = true
		case r == '$' && quote != '\'':
			name, n := varAt(rs[i+1:])
			if v, ok := vars[name]; ok && n > 0 {
				cur.WriteString(v)
				i += n
			} else {
				cur.WriteRune(r)
			}
			in = true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
			in = true
		case strings.ContainsRune(" \t\n;&|<>()`", r):
			flush()
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	flush()
	return words
}

// varAt reads a variable reference after a '$': NAME or {NAME}; n is how
// many runes it took (0 when none).
func varAt(rs []rune) (name string, n int) {
	isName := func(r rune, first bool) bool {
		return r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || !first && r >= '0' && r <= '9'
	}
	if len(rs) > 0 && rs[0] == '{' {
		for j := 1; j < len(rs); j++ {
			if rs[j] == '}' {
				return string(rs[1:j]), j + 1
			}
			if !isName(rs[j], j == 1) {
				return "", 0
			}
		}
		return "", 0
	}
	j := 0
	for j < len(rs) && isName(rs[j], j == 0) {
		j++
	}
	return string(rs[:j]), j
}
