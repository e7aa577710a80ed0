package walk

import (
	"path"
	"strings"
	"testing"
)

// FuzzParseRule feeds arbitrary lines to the ignore-pattern parser: it
// must never panic, and a parsed rule must behave as its kind promises.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"*.log", "!keep.log", "/build/", "docs/**/gen", `\#x`, "a/**", "**/b", "[!a-z]?", "{a,b}", `foo\ `, "\xff*"} {
		f.Add(s, "dir/sub/name.log", true)
	}
	f.Fuzz(func(t *testing.T, line, p string, isDir bool) {
		r, ok := parseRule(line)
		if !ok {
			return
		}
		name := path.Base(p)
		got := r.match(p, name, isDir)
		if r.dirOnly && !isDir && got {
			t.Fatalf("directory-only rule %q matched a file", line)
		}
		switch r.kind {
		case kindName:
			if !r.dirOnly && !r.match(r.lit, r.lit, false) {
				t.Fatalf("name rule %q does not match its own name", line)
			}
		case kindSuffix:
			if !r.dirOnly && !r.match("x"+r.lit, "x"+r.lit, false) {
				t.Fatalf("suffix rule %q does not match x%s", line, r.lit)
			}
		}
		if strings.ContainsAny(line, "\n\r") {
			return // a rule set splits lines
		}
		rs := parseRules("/r", []byte(line+"\n"+line))
		if v := rs.match(p, name, isDir); (v != noVerdict) != got {
			t.Fatalf("rule set of %q says %v, the rule alone %v", line, v, got)
		}
	})
}
