package search

import (
	"testing"
)

// FuzzFindPattern checks that any find pattern either compiles or is
// refused with an error, and that compiling never panics.
func FuzzFindPattern(f *testing.F) {
	for _, s := range []string{"**/*.go", "src/**/*_test.go", "*.{json,yaml}", "./a/b", "[", "a/**/b/**", "/abs/*.txt"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		base, np, err := compileFindPattern(pattern)
		if err != nil {
			return
		}
		if base == "" || np.glob == "" {
			t.Fatalf("pattern %q compiled to base %q glob %q", pattern, base, np.glob)
		}
		np.match("a/b/c.go", "c.go")
		if np.plain && !np.match("d/f"+np.suffix, "f"+np.suffix) {
			t.Fatalf("suffix pattern %q does not match a name ending in %q", pattern, np.suffix)
		}
	})
}
