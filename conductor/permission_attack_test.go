package conductor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// attackWorkspace is a workspace with a secrets folder, a source folder,
// a link into secrets from src, and a link to the whole secrets folder.
func attackWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for _, d := range []string{"secrets/deep", "src", "docs"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, "secrets", "k.txt"), []byte("key"), 0o600)
	os.WriteFile(filepath.Join(ws, "src", "main.go"), []byte("package main"), 0o644)
	os.Symlink(filepath.Join(ws, "secrets", "k.txt"), filepath.Join(ws, "src", "k-link"))
	os.Symlink(filepath.Join(ws, "secrets"), filepath.Join(ws, "vault"))
	return ws
}

func refused(t *testing.T, p *permissions, tool, input string) bool {
	t.Helper()
	refuse, _ := p.refusal(tool, false, json.RawMessage(input), false)
	return refuse != ""
}

// Path rules are matched where the tools act, not on the model's string:
// every way of naming a denied file that the tools accept is refused, and
// the searches whose results would show it too.
func TestPathRulesCannotBeWalkedAround(t *testing.T) {
	t.Parallel()
	ws := attackWorkspace(t)
	home, _ := os.UserHomeDir()
	rel, _ := filepath.Rel(home, filepath.Join(ws, "secrets", "k.txt"))
	deny, err := ParseRules([]string{"Read(secrets/**)", "Edit(secrets/**)"})
	if err != nil {
		t.Fatal(err)
	}
	p := &permissions{mode: BypassPermissions, disallow: deny, root: ws}
	abs := filepath.Join(ws, "secrets", "k.txt")
	js := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) }
	for _, c := range []struct {
		name, tool, input string
	}{
		{"plain", "read", js(map[string]any{"path": "secrets/k.txt"})},
		{"absolute", "read", js(map[string]any{"path": abs})},
		{"dot-dot", "read", js(map[string]any{"path": "src/../secrets/k.txt"})},
		{"at prefix", "read", js(map[string]any{"path": "@secrets/k.txt"})},
		{"tilde", "read", js(map[string]any{"path": "~/" + rel})},
		{"linked file", "read", js(map[string]any{"path": "src/k-link"})},
		{"linked folder", "read", js(map[string]any{"path": "vault/k.txt"})},
		{"the folder", "ls", js(map[string]any{"path": "secrets"})},
		{"a folder inside", "ls", js(map[string]any{"path": "secrets/deep"})},
		{"the linked folder", "ls", js(map[string]any{"path": "vault"})},
		{"grep everything", "grep", js(map[string]any{"pattern": "key"})},
		{"grep the parent", "grep", js(map[string]any{"pattern": "key", "path": "."})},
		{"grep from outside", "grep", js(map[string]any{"pattern": "key", "path": filepath.Dir(ws)})},
		{"find everything", "find", js(map[string]any{"pattern": "**"})},
		{"find the folder", "find", js(map[string]any{"pattern": "*", "path": "secrets"})},
		{"workspace symbols", "symbols", js(map[string]any{"action": "workspace_symbols", "query": "x"})},
		{"symbols of the file", "symbols", js(map[string]any{"action": "document_symbols", "path": "secrets/k.txt"})},
		{"write absolute", "write", js(map[string]any{"path": abs, "content": "x"})},
		{"write dot-dot", "write", js(map[string]any{"path": "src/../secrets/j.txt", "content": "x"})},
		{"write a new file", "write", js(map[string]any{"path": "secrets/new/x.txt", "content": "x"})},
		{"edit through a link", "edit", js(map[string]any{"path": "src/k-link", "old_string": "key", "new_string": "x"})},
		{"edit in the linked folder", "edit", js(map[string]any{"path": "vault/k.txt", "old_string": "key", "new_string": "x"})},
	} {
		if !refused(t, p, c.tool, c.input) {
			t.Errorf("%s: %s %s ran despite %v", c.name, c.tool, c.input, deny)
		}
	}
	for _, c := range []struct {
		name, tool, input string
	}{
		{"another file", "read", js(map[string]any{"path": "src/main.go"})},
		{"list the parent", "ls", js(map[string]any{"path": "."})},
		{"grep a folder beside", "grep", js(map[string]any{"pattern": "x", "path": "src"})},
		{"grep a file", "grep", js(map[string]any{"pattern": "x", "path": "src/main.go"})},
		{"find beside", "find", js(map[string]any{"pattern": "*", "path": "docs"})},
		{"write beside", "write", js(map[string]any{"path": "src/new.go", "content": "x"})},
		{"outside the workspace", "read", js(map[string]any{"path": filepath.Join(filepath.Dir(ws), "secrets", "k.txt")})},
	} {
		if refused(t, p, c.tool, c.input) {
			t.Errorf("%s: %s %s was refused", c.name, c.tool, c.input)
		}
	}

	// An allow rule does not reach past its folder: not by .., not by a
	// link inside it that leads elsewhere, not outside the workspace.
	allow, _ := ParseRules([]string{"Edit(src/**)"})
	ap := &permissions{mode: Default, allow: allow, root: ws}
	for _, in := range []string{
		js(map[string]any{"path": "src/../secrets/k.txt"}),
		js(map[string]any{"path": "src/k-link"}),
		js(map[string]any{"path": filepath.Join(filepath.Dir(ws), "src", "x")}),
	} {
		if _, ask := ap.refusal("write", false, json.RawMessage(in), false); ask == "" {
			t.Errorf("Edit(src/**) allowed write %s", in)
		}
	}
	if _, ask := ap.refusal("write", false, json.RawMessage(js(map[string]any{"path": "src/a/b.go"})), false); ask != "" {
		t.Errorf("Edit(src/**) did not allow src/a/b.go: %s", ask)
	}
}

// A Bash rule covers every tool that runs a command, and a command-prefix
// deny rule sees each command a script runs, whatever its spelling.
func TestCommandRulesSeeEveryCommand(t *testing.T) {
	t.Parallel()
	bare, _ := ParseRules([]string{"Bash"})
	p := &permissions{mode: BypassPermissions, disallow: bare, root: t.TempDir()}
	for _, tool := range []string{"bash", "process", "bg-process"} {
		if !p.removes(tool) {
			t.Errorf("a bare Bash deny leaves %s to the model", tool)
		}
	}

	deny, _ := ParseRules([]string{"Bash(rm:*)"})
	p = &permissions{mode: BypassPermissions, disallow: deny, root: t.TempDir()}
	for _, cmd := range []string{
		"rm -rf x", "echo hi; rm -rf x", "true && rm x", "echo $(rm x)", "echo `rm x`",
		"env rm x", "env -i FOO=1 rm x", `\rm x`, `"rm" x`, `'rm' x`, `r""m x`, "/bin/rm x",
		"bash -c 'rm x'", "sh -c \"rm x\"", "bash -lc 'rm x'", "sudo -u root rm x", "xargs rm < list",
		"find . -name a -exec rm {} ;", "{ rm x; }", "(rm x)", "rm\tx", "X=1 rm x", "timeout 5 rm x",
		"nice -n 5 rm x", "command rm x", "exec rm x", "nohup rm x &", "eval rm x", "eval 'rm x'",
		"$CMD x", "$(echo rm) x", "{rm,x}", "r? x", "echo rm x | bash", "bash <<EOF\nrm x\nEOF",
		"f() { rm x; }; f", "if true; then rm x; fi", "for i in 1; do rm $i; done", "echo <(rm x)",
		"cat x | rm y", "sudo bash -c 'cd / && rm -rf x'", "bash -c \"$(cat s)\"", "echo 'unterminated",
	} {
		for _, tool := range []string{"bash", "process", "bg-process"} {
			in, _ := json.Marshal(map[string]string{"action": "start", "command": cmd})
			if refuse, _ := p.refusal(tool, false, in, false); refuse == "" {
				t.Errorf("%s %q ran despite Bash(rm:*)", tool, cmd)
			}
		}
	}
	in, _ := json.Marshal(map[string]string{"action": "input", "id": "1", "text": "rm -rf x\n"})
	if refuse, _ := p.refusal("process", false, in, false); refuse == "" {
		t.Error("rm typed into a running shell ran despite Bash(rm:*)")
	}
	for _, cmd := range []string{"ls -la", "echo rm", "git rm-branch", "grep -r rm .", "rmdir x", "bash script.sh"} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if refuse, _ := p.refusal("bash", false, in, false); refuse != "" {
			t.Errorf("%q was refused by Bash(rm:*): %s", cmd, refuse)
		}
	}

	// An allow rule covers one plain command only.
	allow, _ := ParseRules([]string{"Bash(git diff:*)"})
	ap := &permissions{mode: Default, allow: allow, root: t.TempDir()}
	for cmd, want := range map[string]bool{
		"git diff": true, "git diff --stat": true, `git "diff" HEAD`: true,
		"git diff; rm x": false, "git diff > out": false, "git diff $(rm x)": false,
		"X=1 git diff": false, "git diff &": false, "git diffuse": false, "git diff *": false,
	} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if _, ask := ap.refusal("bash", false, in, false); (ask == "") != want {
			t.Errorf("Bash(git diff:*) on %q: allowed %v, want %v", cmd, ask == "", want)
		}
	}
}
