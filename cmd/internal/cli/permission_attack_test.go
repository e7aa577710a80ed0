package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
)

// Through indusr -p, even under bypassPermissions, a deny rule on a folder holds
// whichever way the model names a file in it, and a Bash deny holds for
// every tool that runs a command.
func TestPrintDenyRulesHoldAgainstOtherSpellings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "secrets"), 0o755)
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.Symlink(filepath.Join(dir, "secrets"), filepath.Join(dir, "src", "vault"))
	abs := filepath.Join(dir, "secrets", "a.txt")
	write := func(path string) string {
		b, _ := json.Marshal(map[string]string{"path": path, "content": "planted"})
		return string(b)
	}
	srv := fakemodel.Start(t,
		fakemodel.Call("write", write(abs)),
		fakemodel.Call("write", write("src/../secrets/b.txt")),
		fakemodel.Call("write", write("src/vault/c.txt")),
		fakemodel.Call("write", write("@secrets/d.txt")),
		fakemodel.Call("process", `{"action":"start","command":"touch e.txt"}`),
		fakemodel.Call("bg-process", `{"action":"start","command":"touch f.txt"}`),
		fakemodel.Say("done"))
	out, err := indusrP(t, dir, srv, "-p", "plant", "--permission-mode", "bypassPermissions",
		"--disallowed-tools", "Edit(secrets/**)", "--disallowed-tools", "Bash(touch:*)").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, name := range []string{"secrets/a.txt", "secrets/b.txt", "secrets/c.txt", "secrets/d.txt", "e.txt", "f.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was written despite the deny rules", name)
		}
	}
}
