package intent

import (
	"strings"
	"unicode"
)

// snakeCase turns a Go type name into a tool name: AddText is add_text,
// HTTPGet is http_get, Undo is undo. A run of capitals is one word whose
// last capital starts the next word when a lower-case letter follows it.
func snakeCase(name string) string {
	rs := []rune(name)
	var sb strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					sb.WriteByte('_')
				}
			}
			sb.WriteRune(unicode.ToLower(r))
			continue
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// label is the human title of a tool name: add_text is "Add text".
func label(name string) string {
	words := strings.Fields(strings.ReplaceAll(name, "_", " "))
	if len(words) == 0 {
		return name
	}
	s := strings.Join(words, " ")
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
