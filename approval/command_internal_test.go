package approval

import (
	"regexp"
	"testing"
)

// hasExtension answers as the regular expression it replaced, on the
// edges of its rule: the dot, one to eight letters or digits, the end.
func TestHasExtensionIsTheOldPattern(t *testing.T) {
	t.Parallel()
	old := regexp.MustCompile(`\.[A-Za-z0-9]{1,8}$`)
	for _, w := range []string{
		"", ".", "a.", "run.py", "x.tar.gz", "a.12345678", "a.123456789", ".bashrc",
		"notes", "a.b-c", "a.b_c", "a.é", "README.MD", "v1.2", "a..", "a.b.", "x.py\n", "dir.d/x",
	} {
		if got, want := hasExtension(w), old.MatchString(w); got != want {
			t.Errorf("hasExtension(%q) = %v, the pattern says %v", w, got, want)
		}
	}
}
