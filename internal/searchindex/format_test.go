package searchindex

import "testing"

// TestValidRel: a path of the file table never leads out of the root,
// since grep opens what the table lists.
func TestValidRel(t *testing.T) {
	for p, want := range map[string]bool{
		"a": true, "a/b.go": true, "a..b": true, "..a/b": true, "a/..b": true, "a/b..": true,
		"": false, "/etc/passwd": false, "..": false, "../a": false, "a/..": false,
		"a/../b": false, "a/b/../../..": false, "a\x00b": false,
	} {
		if got := validRel(p); got != want {
			t.Errorf("validRel(%q) = %v, want %v", p, got, want)
		}
	}
}
