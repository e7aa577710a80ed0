package hooks

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

const settingsSample = `{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh", "timeout": 30}
        ]
      },
      {"matcher": "Edit|(Write", "hooks": [{"type": "command", "command": "x"}]}
    ],
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [
        {"type": "command", "command": "npx prettier --write"},
        {"type": "prompt", "prompt": "review it"}
      ]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "say done"}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi", "timeout": 0.5}]}]
  }
}`

func TestParseSettings(t *testing.T) {
	t.Parallel()
	hooks, faults := ParseSettings("/p/.claude/settings.json", []byte(settingsSample))
	type row struct {
		name, matcher, command string
		timeout                time.Duration
		line                   int
	}
	want := []row{
		{"PreToolUse", "Bash", "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh", 30 * time.Second, 8},
		{"PostToolUse", "Edit|Write", "npx prettier --write", 0, 15},
		{"SessionStart", "", "echo hi", 500 * time.Millisecond, 20},
	}
	if len(hooks) != len(want) {
		t.Fatalf("hooks %+v, want %d", hooks, len(want))
	}
	for i, w := range want {
		h := hooks[i]
		if h.Name != w.name || h.Matcher != w.matcher || h.Command != w.command || h.Timeout != w.timeout || h.Line != w.line || !h.Claude {
			t.Errorf("hook %d: %+v, want %+v", i, h, w)
		}
	}
	var msgs []string
	for _, f := range faults {
		msgs = append(msgs, f.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, w := range []string{
		`settings.json:11: hooks.PreToolUse[1].matcher: "Edit|(Write" is not a valid regular expression`,
		`settings.json:16: hooks.PostToolUse[0].hooks[1] has type "prompt"; only "command" hooks run here`,
		`settings.json:19: hooks of event Notification are not run: "Notification" is not a hook event`,
	} {
		if !strings.Contains(all, w) {
			t.Errorf("faults\n%s\nlack %q", all, w)
		}
	}
	if len(faults) != 3 {
		t.Errorf("%d faults, want 3:\n%s", len(faults), all)
	}
}

func TestParseSettingsFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      string
	}{
		{"syntax", "{\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}", "settings.json:3: settings are not valid JSON"},
		{"hooks not an object", `{"hooks": []}`, "hooks is not an object"},
		{"event not a list", "{\"hooks\": {\n\"PreToolUse\": {}}}", "settings.json:2: hooks.PreToolUse must be a list"},
		{"no command", `{"hooks": {"PostToolUse": [{"hooks": [{"type": "command"}]}]}}`, "needs a command"},
		{"timeout", `{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}}`, "timeout -1: give seconds"},
		{"matcher not a string", `{"hooks": {"PreToolUse": [{"matcher": 3, "hooks": []}]}}`, "hooks.PreToolUse[0] must be"},
	}
	for _, tt := range tests {
		hooks, faults := ParseSettings("settings.json", []byte(tt.src))
		if len(hooks) != 0 || len(faults) != 1 || !strings.Contains(faults[0].Error(), tt.want) {
			t.Errorf("%s: hooks %v faults %v, want one fault with %q", tt.name, hooks, faults, tt.want)
		}
	}
	if hooks, faults := ParseSettings("s", []byte(`{"model": "x"}`)); len(hooks)+len(faults) != 0 {
		t.Errorf("settings without hooks: %v %v", hooks, faults)
	}
}

// FuzzParseSettings: no settings file makes the parser panic, every hook
// it returns can run, and every fault names the file.
func FuzzParseSettings(f *testing.F) {
	f.Add([]byte(settingsSample))
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		hooks, faults := ParseSettings("f.json", data)
		for _, h := range hooks {
			if h.Command == "" || h.Name == "" || h.Timeout < 0 || !h.Claude {
				t.Errorf("hook %+v", h)
			}
			h.Matches("bash")
		}
		for _, fl := range faults {
			if fl.File != "f.json" || fl.Line < 0 {
				t.Errorf("fault %+v", fl)
			}
		}
	})
}

func TestParseOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out, err string
		reply    bool
	}{
		{"", "", false},
		{"  \n", "", false},
		{`{}`, "", true},
		{`{"continue": false, "stopReason": "x", "unknownField": 1}`, "", true},
		{"done\n", "not a JSON reply", false},
		{`{"decision": "allow"}`, `decision "allow"`, false},
		{`{"hookSpecificOutput": {"updatedInput": [1]}}`, "not a JSON object", false},
		{`{"continue": "no"}`, "does not parse", false},
	}
	for _, tt := range tests {
		o, err := ParseOutput([]byte(tt.out))
		if (o != nil) != tt.reply || (tt.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: %+v, %v; want reply %v, error %q", tt.out, o, err, tt.reply, tt.err)
		}
	}
}

// FuzzParseOutput: what a hook prints never panics the reader, and an
// error quotes the output as valid UTF-8.
func FuzzParseOutput(f *testing.F) {
	f.Add([]byte(`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`))
	f.Add([]byte("garbage\xff\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseOutput(data)
		if err != nil && !utf8.ValidString(err.Error()) {
			t.Errorf("error is not UTF-8: %q", err.Error())
		}
	})
}
