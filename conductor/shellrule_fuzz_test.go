package conductor

import "testing"

// Commands come from the model: matching never panics, a script that
// goes on to run rm is always refused by Bash(rm:*), and an allow rule
// never covers what a deny rule of the same words refuses in a script of
// one command.
func FuzzCommandRules(f *testing.F) {
	for _, s := range []string{
		"rm -rf x", "git diff", "echo $(rm x)", "bash -c 'rm x'", "env -i rm", `\rm x`, "{rm,x}",
		"f() { rm x; }; f", "echo 'unterminated", "sudo bash -c \"eval rm\"", "cat <<EOF\nrm\nEOF",
	} {
		f.Add(s)
	}
	rm := []string{"rm"}
	f.Fuzz(func(t *testing.T, script string) {
		denied := scriptDenied(rm, true, script, 0)
		if !scriptDenied(rm, true, script+"\nrm x", 0) {
			t.Errorf("%q followed by rm x was not refused", script)
		}
		if scriptAllowed(rm, true, script) && !denied {
			t.Errorf("Bash(rm:*) allows %q but a deny of it does not refuse it", script)
		}
	})
}
