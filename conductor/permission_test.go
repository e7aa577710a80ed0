package conductor

import (
	"encoding/json"
	"testing"
)

func TestRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		rule, tool, input string
		want              bool
	}{
		{"Bash(git diff:*)", "bash", `{"command":"git diff --stat"}`, true},
		{"Bash(git diff:*)", "bash", `{"command":"git diff"}`, true},
		{"Bash(git diff:*)", "bash", `{"command":"git diffuse"}`, false},
		{"Bash(git diff:*)", "bash", `{"command":"git diff && rm -rf ~"}`, false},
		{"Bash(git diff:*)", "bash", `{"command":"git diff $(rm x)"}`, false},
		{"Bash(npm test)", "bash", `{"command":"npm test"}`, true},
		{"Bash(npm test)", "bash", `{"command":"npm test -- -u"}`, false},
		{"Bash", "bash", `{"command":"anything"}`, true},
		{"Edit", "write", `{"path":"a"}`, true},
		{"Edit", "edit", `{"path":"a"}`, true},
		{"Edit(src/**)", "edit", `{"path":"src/a/b.go"}`, true},
		{"Edit(src/**)", "edit", `{"path":"main.go"}`, false},
		{"Read", "grep", `{}`, true},
		{"WebFetch(domain:go.dev)", "webfetch", `{"url":"https://pkg.go.dev/x"}`, true},
		{"WebFetch(domain:go.dev)", "webfetch", `{"url":"https://evilgo.dev/x"}`, false},
		{"mcp__fs__read_file", "fs__read_file", `{}`, true},
		{"mcp__fs", "fs__write_file", `{}`, true},
		{"mcp__fs", "fsx__write_file", `{}`, false},
		{"bash", "bash", `{}`, true},
		{"Write", "edit", `{}`, false},
	}
	for _, c := range cases {
		rs, err := ParseRules([]string{c.rule})
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %v", c.rule, err)
		}
		if got := rs[0].matches(t.TempDir(), c.tool, json.RawMessage(c.input)); got != c.want {
			t.Errorf("%s on %s %s: %v, want %v", c.rule, c.tool, c.input, got, c.want)
		}
	}
	rs, err := ParseRules([]string{"Read,Edit Bash(git log:*)"})
	if err != nil || len(rs) != 3 || rs[2].Spec != "git log" || !rs[2].Prefix {
		t.Errorf("split rules: %+v %v", rs, err)
	}
	if _, err := ParseRules([]string{"Bash("}); err == nil {
		t.Error("a broken rule was accepted")
	}
}

func TestModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode     PermissionMode
		tool     string
		readOnly bool
		planning bool
		runs     bool
	}{
		{Default, "read", true, false, true},
		{Default, "bash", false, false, false},
		{Default, "write", false, false, false},
		{AcceptEdits, "write", false, false, true},
		{AcceptEdits, "bash", false, false, false},
		{BypassPermissions, "bash", false, false, true},
		{BypassPermissions, "bash", false, true, false},
		{Plan, "todo_set", false, true, true},
		{Default, "exit_plan_mode", true, true, true},
	} {
		p := permissions{mode: c.mode}
		refuse, ask := p.refusal(c.tool, c.readOnly, nil, c.planning)
		if got := refuse == "" && ask == ""; got != c.runs {
			t.Errorf("%s %s planning=%v: runs %v, want %v", c.mode, c.tool, c.planning, got, c.runs)
		}
	}
	// A deny rule wins over bypassPermissions.
	deny, _ := ParseRules([]string{"Bash(rm:*)"})
	p := permissions{mode: BypassPermissions, disallow: deny}
	for _, cmd := range []string{"rm -rf x", "echo hi; rm -rf x", "true && rm x", "echo $(rm x)"} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if refuse, _ := p.refusal("bash", false, in, false); refuse == "" {
			t.Errorf("the disallowed %q ran under bypassPermissions", cmd)
		}
	}
}
