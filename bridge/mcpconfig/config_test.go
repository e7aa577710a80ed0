package mcpconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	vars := env(map[string]string{"TOKEN": "s3cret", "HOST": "example.test", "EMPTY": ""})
	tests := []struct {
		name     string
		json     string
		want     []Server
		warnings []string // substrings, one per warning, in order
	}{
		{
			name: "array form, both transports, disabled dropped",
			json: `{"servers":[
				{"name":"github","command":"npx","args":["-y","@scope/server-github"],"env":{"B":"2","A":"1"},"enabled":true},
				{"name":"remote","url":"http://localhost:8080/mcp","headers":{"Authorization":"Bearer t"}},
				{"name":"off","command":"x","enabled":false}]}`,
			want: []Server{
				{Name: "github", Transport: Stdio, Command: "npx", Args: []string{"-y", "@scope/server-github"}, Env: []Pair{{"B", "2"}, {"A", "1"}}, Row: "servers[0]"},
				{Name: "remote", Transport: StreamableHTTP, DetectTransport: true, URL: "http://localhost:8080/mcp", Headers: []Pair{{"Authorization", "Bearer t"}}, Row: "servers[1]"},
			},
		},
		{
			name: "object form keeps declaration order",
			json: `{"servers":{"zeta":{"command":"z"},"alpha":{"url":"http://a/sse"},"mid":{"command":"m","name":"ignored"}}}`,
			want: []Server{
				{Name: "zeta", Transport: Stdio, Command: "z", Row: `servers["zeta"]`},
				{Name: "alpha", Transport: StreamableHTTP, DetectTransport: true, URL: "http://a/sse", Row: `servers["alpha"]`},
				{Name: "mid", Transport: Stdio, Command: "m", Row: `servers["mid"]`},
			},
		},
		{
			name: "Claude Code format with types",
			json: `{"mcpServers":{
				"fs":{"type":"stdio","command":"node","args":["fs.js"]},
				"api":{"type":"http","url":"https://api/mcp"},
				"api2":{"type":"streamable-http","url":"https://api2/mcp"},
				"old":{"type":"sse","url":"https://old/sse"},
				"cline":{"command":"c","disabled":true}}}`,
			want: []Server{
				{Name: "fs", Transport: Stdio, Command: "node", Args: []string{"fs.js"}, Row: `mcpServers["fs"]`},
				{Name: "api", Transport: StreamableHTTP, URL: "https://api/mcp", Row: `mcpServers["api"]`},
				{Name: "api2", Transport: StreamableHTTP, URL: "https://api2/mcp", Row: `mcpServers["api2"]`},
				{Name: "old", Transport: SSE, URL: "https://old/sse", Row: `mcpServers["old"]`},
			},
		},
		{
			name: "variables expand in command, args, env, url and headers",
			json: `{"servers":{
				"s":{"command":"${HOST}-bin","args":["--token=${TOKEN}","${MISSING:-fallback}","${EMPTY:-dflt}","$TOKEN","${unterminated"],"env":{"T":"${TOKEN}"}},
				"h":{"type":"http","url":"https://${HOST}/mcp","headers":{"Authorization":"Bearer ${TOKEN}"}}}}`,
			want: []Server{
				{Name: "s", Transport: Stdio, Command: "example.test-bin", Args: []string{"--token=s3cret", "fallback", "dflt", "$TOKEN", "${unterminated"}, Env: []Pair{{"T", "s3cret"}}, Row: `servers["s"]`},
				{Name: "h", Transport: StreamableHTTP, URL: "https://example.test/mcp", Headers: []Pair{{"Authorization", "Bearer s3cret"}}, Row: `servers["h"]`},
			},
		},
		{
			name: "shell forms: alternatives, unset-only defaults, nested defaults",
			json: `{"servers":{"s":{"command":"run","args":[
				"${TOKEN:+--token=${TOKEN}}", "${NOPE:+--never}", "${EMPTY:+--never}", "${EMPTY+set-but-empty}",
				"${EMPTY-unused}", "${NOPE-dflt}", "${NOPE:-${HOST}}", "${NOPE:-${ALSO_NOPE:-deep}}", "${NOPE:=x}",
				"${TOKEN:?never shown}", "${1X}", "${A B}", "${NOPE:-a}}"]}}}`,
			want: []Server{{Name: "s", Transport: Stdio, Command: "run", Args: []string{
				"--token=s3cret", "", "", "set-but-empty",
				"", "dflt", "example.test", "deep", "x",
				"s3cret", "${1X}", "${A B}", "a}"}, Row: `servers["s"]`}},
		},
		{
			name: "${VAR:?message} fails its row with the message",
			json: `{"servers":{
				"gh":{"command":"gh-mcp","env":{"GITHUB_TOKEN":"${GH_TOKEN:?set GH_TOKEN to a token with repo scope}"}},
				"empty":{"url":"https://${EMPTY:?}/mcp"},
				"unsetonly":{"url":"https://h${EMPTY?must be set}/mcp"},
				"nested":{"command":"x","args":["${NOPE:?${HOST} needs NOPE}"]},
				"ok":{"command":"ok"}}}`,
			want: []Server{
				{Name: "unsetonly", Transport: StreamableHTTP, DetectTransport: true, URL: "https://h/mcp", Row: `servers["unsetonly"]`},
				{Name: "ok", Transport: Stdio, Command: "ok", Row: `servers["ok"]`},
			},
			warnings: []string{
				`servers["gh"]: server "gh" is skipped: ${GH_TOKEN} is not set: set GH_TOKEN to a token with repo scope`,
				`servers["empty"]: server "empty" is skipped: ${EMPTY} is empty: the config requires it`,
				`servers["nested"]: server "nested" is skipped: ${NOPE} is not set: example.test needs NOPE`,
			},
		},
		{
			name:     "an unset variable expands to nothing, with a warning",
			json:     `{"servers":{"s":{"command":"run","args":["${NOPE}"]}}}`,
			want:     []Server{{Name: "s", Transport: Stdio, Command: "run", Args: []string{""}, Row: `servers["s"]`}},
			warnings: []string{`servers["s"]: server "s" uses ${NOPE}, which is not set`},
		},
		{
			name: "bad rows are skipped, good ones kept",
			json: `{"servers":[
				{"name":"","command":"x"},
				{"name":"nothing"},
				"not an object",
				{"name":"weird","type":"carrier-pigeon","url":"x"},
				{"name":"nocmd","type":"stdio"},
				{"name":"nourl","type":"http"},
				{"name":"good","command":"g","args":["a",1,"b"]}]}`,
			want: []Server{{Name: "good", Transport: Stdio, Command: "g", Args: []string{"a", "b"}, Row: "servers[6]"}},
			warnings: []string{
				"servers[0]: server has no name",
				`servers[1]: server "nothing" has neither "url" nor "command"; skipped`,
				"servers[2]: a server must be a JSON object",
				`servers[3]: unknown type "carrier-pigeon"`,
				`servers[4]: server "nocmd" runs over stdio but has no "command"`,
				`servers[5]: server "nourl" uses http but has no "url"`,
				`servers[6]: args[1] of server "good" is not a string (1); dropped`,
			},
		},
		{
			name: "timeouts in milliseconds or as durations",
			json: `{"servers":{"a":{"command":"a","startupTimeout":2500,"callTimeout":"2m"},"b":{"command":"b","startupTimeout":"soon","callTimeout":-1}}}`,
			want: []Server{
				{Name: "a", Transport: Stdio, Command: "a", StartupTimeout: 2500 * time.Millisecond, CallTimeout: 2 * time.Minute, Row: `servers["a"]`},
				{Name: "b", Transport: Stdio, Command: "b", Row: `servers["b"]`},
			},
			warnings: []string{`startupTimeout "soon" is not a positive duration`, "callTimeout must be milliseconds"},
		},
		{
			name:     "url and command without a type: url wins, with a warning",
			json:     `{"servers":{"both":{"url":"http://u/sse","command":"c"}}}`,
			want:     []Server{{Name: "both", Transport: StreamableHTTP, DetectTransport: true, URL: "http://u/sse", Row: `servers["both"]`}},
			warnings: []string{`has both "url" and "command"`},
		},
		{name: "malformed JSON yields nothing", json: `{"servers":[{"name":"a","command":"x"}`, warnings: []string{"not a JSON object"}},
		{name: "not an object", json: `[1,2]`, warnings: []string{"not a JSON object"}},
		{name: "no servers field", json: `{"server":{}}`, warnings: []string{`no "servers" or "mcpServers" field`}},
		{name: "servers of the wrong type", json: `{"servers":"fs"}`, warnings: []string{"servers: must be an array of servers or an object"}},
		{name: "empty", json: `{"servers":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings := Parse([]byte(tc.json), "/cfg/mcp.json", vars)
			for i := range got {
				if got[i].Source != "/cfg/mcp.json" {
					t.Errorf("server %q source %q", got[i].Name, got[i].Source)
				}
				got[i].Source = ""
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("servers:\n got %+v\nwant %+v", got, tc.want)
			}
			if len(warnings) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %d matching %q", warnings, len(tc.warnings), tc.warnings)
			}
			for i, w := range warnings {
				if w.File != "/cfg/mcp.json" || !strings.Contains(w.String(), tc.warnings[i]) {
					t.Errorf("warning %d = %q, want it to name the file and say %q", i, w.String(), tc.warnings[i])
				}
			}
		})
	}
}

func TestParseConfigRelativeCwd(t *testing.T) {
	t.Parallel()
	got, _ := Parse([]byte(`{"servers":{"a":{"command":"a","cwd":"tools"},"b":{"command":"b","cwd":"/abs"}}}`), "/proj/.indusvx/mcp.json", nil)
	if got[0].Dir != "/proj/.indusvx/tools" || got[1].Dir != "/abs" {
		t.Errorf("dirs %q %q", got[0].Dir, got[1].Dir)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadConfigDiscovery(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj, home, xdg := filepath.Join(root, "proj"), filepath.Join(root, "home"), filepath.Join(root, "xdg")
	writeFile(t, filepath.Join(proj, ".indusvx", "mcp.json"), `{"servers":{"p1":{"command":"p1"},"shared":{"command":"project"}}}`)
	writeFile(t, filepath.Join(proj, ".mcp.json"), `{"mcpServers":{"claude":{"command":"c"}}}`)
	writeFile(t, filepath.Join(xdg, "indusvx", "mcp.json"), `{"servers":{"user":{"command":"u"},"shared":{"command":"user"}}}`)
	writeFile(t, filepath.Join(home, ".indusvx", "agent", "mcp.json"), `{"servers":[{"name":"legacy","command":"l"}]}`)
	writeFile(t, filepath.Join(home, ".indusvx", "agent", "mcp-servers.json"), `{"servers": oops}`)

	l := Loader{LookupEnv: env(map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg})}
	got, warnings := l.Load(proj)
	var names []string
	for _, s := range got {
		names = append(names, s.Name+"="+s.Command)
	}
	want := []string{"p1=p1", "shared=project", "claude=c", "user=u", "legacy=l"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("merged %v, want %v", names, want)
	}
	if len(warnings) != 2 ||
		!strings.Contains(warnings[0].String(), `server "shared" is already declared in `+filepath.Join(proj, ".indusvx", "mcp.json")) ||
		!strings.Contains(warnings[1].String(), "mcp-servers.json: not a JSON object") {
		t.Errorf("warnings %q", warnings)
	}

	// XDG_CONFIG_HOME defaults to ~/.config.
	writeFile(t, filepath.Join(home, ".config", "indusvx", "mcp.json"), `{"servers":{"dotconfig":{"command":"d"}}}`)
	l2 := Loader{LookupEnv: env(map[string]string{"HOME": home})}
	got, _ = l2.Load(filepath.Join(root, "empty"))
	if len(got) == 0 || got[0].Name != "dotconfig" {
		t.Errorf("without XDG_CONFIG_HOME: %+v", got)
	}

	// An existing file is parsed alone.
	got, warnings = l.Load(filepath.Join(proj, ".mcp.json"))
	if len(got) != 1 || got[0].Name != "claude" || len(warnings) != 0 {
		t.Errorf("explicit file: %+v %q", got, warnings)
	}

	// A path that does not exist says so and falls back to discovery.
	_, warnings = l.Load(filepath.Join(root, "typo.json"))
	if len(warnings) == 0 || !strings.Contains(warnings[0].String(), "no such file or directory") {
		t.Errorf("missing path warnings %q", warnings)
	}

	// An unreadable source is a warning, not an abort.
	writeFile(t, filepath.Join(root, "bad", ".mcp.json", "x"), "")
	got, warnings = Loader{LookupEnv: env(nil)}.Load(filepath.Join(root, "bad"))
	if len(got) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0].String(), "cannot read it") {
		t.Errorf("unreadable: %+v %q", got, warnings)
	}

	// The project directory being the home directory reads each file once.
	got, warnings = Loader{LookupEnv: env(map[string]string{"HOME": proj})}.Load(proj)
	if len(got) != 3 || len(warnings) != 0 {
		t.Errorf("home = project: %+v %q", got, warnings)
	}
}

func TestLoadConfigRealEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "m.json"), `{"servers":{"a":{"command":"a"}}}`)
	got, warnings := Load(filepath.Join(dir, "m.json"))
	if len(got) != 1 || len(warnings) != 0 {
		t.Errorf("%+v %q", got, warnings)
	}
}

// FuzzParseConfig: any input parses without panicking, and every server it
// yields is usable: a name and the fields its transport needs.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		`{"servers":[{"name":"a","command":"x","args":["${A:-b}"],"env":{"K":"v"}}]}`,
		`{"servers":{"b":{"url":"http://h/sse","headers":{"H":"${H}"}}}}`,
		`{"mcpServers":{"c":{"type":"http","url":"http://h/mcp","startupTimeout":"3s"}}}`,
		`{"servers":{"d":{"command":"d","enabled":false}}}`,
		`{"servers":[1,"x",null,{}]}`,
		`{"servers":{"a":1,"a":{"command":"z"}}}`,
		`{`,
		`{"servers":{"e":{"command":"${NOPE:-${A:-${H}}}","args":["${A:+x${H}y}","${A:?}","${B?${A}}"]}}}`,
		`{"servers":{"f":{"url":"${NOPE:?set NOPE}","cwd":"${A:-${"}}}`,
	} {
		f.Add([]byte(s))
	}
	lookup := env(map[string]string{"A": "1", "H": "h"})
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, _ := Parse(data, "fuzz.json", lookup)
		for _, s := range servers {
			if strings.TrimSpace(s.Name) == "" {
				t.Fatalf("server without a name from %q", data)
			}
			switch s.Transport {
			case Stdio:
				if s.Command == "" && !strings.Contains(string(data), "${") {
					t.Fatalf("stdio server %q without a command from %q", s.Name, data)
				}
			case SSE, StreamableHTTP:
				if s.URL == "" && !strings.Contains(string(data), "${") {
					t.Fatalf("%s server %q without a url from %q", s.Transport, s.Name, data)
				}
			default:
				t.Fatalf("server %q with transport %v from %q", s.Name, s.Transport, data)
			}
			if s.StartupTimeout < 0 || s.StartupTimeout > maxConfigTimeout || s.CallTimeout < 0 || s.CallTimeout > maxConfigTimeout {
				t.Fatalf("timeouts %v %v from %q", s.StartupTimeout, s.CallTimeout, data)
			}
		}
	})
}

// ParseAsWritten keeps every value as written: a person approving
// a config sees ${VARS}, never the secrets they hold.
func TestParseConfigAsWritten(t *testing.T) {
	t.Setenv("AS_WRITTEN_SECRET", "hunter2")
	data := []byte(`{"mcpServers": {
  "a": {"command": "${AS_WRITTEN_SECRET}/bin", "args": ["${AS_WRITTEN_SECRET:-x}"], "env": {"BASH_ENV": "./p.sh", "K": "${AS_WRITTEN_SECRET}"}, "cwd": "sub"},
  "b": {"url": "https://h.test/?k=${AS_WRITTEN_SECRET}", "headers": {"X-Leak": "${AS_WRITTEN_SECRET:?must be set}"}}
}}`)
	servers, warnings := ParseAsWritten(data, "/w/.mcp.json")
	if len(servers) != 2 || len(warnings) != 0 {
		t.Fatalf("servers %+v warnings %v", servers, warnings)
	}
	a, b := servers[0], servers[1]
	if a.Command != "${AS_WRITTEN_SECRET}/bin" || a.Args[0] != "${AS_WRITTEN_SECRET:-x}" || a.Dir != "sub" ||
		a.Env[0] != (Pair{"BASH_ENV", "./p.sh"}) || a.Env[1].Value != "${AS_WRITTEN_SECRET}" {
		t.Errorf("stdio row: %+v", a)
	}
	if b.URL != "https://h.test/?k=${AS_WRITTEN_SECRET}" || b.Headers[0].Value != "${AS_WRITTEN_SECRET:?must be set}" {
		t.Errorf("http row: %+v", b)
	}
	expanded, _ := Parse(data, "/w/.mcp.json", os.LookupEnv)
	if expanded[1].Headers[0].Value != "hunter2" {
		t.Errorf("Parse no longer expands: %+v", expanded[1])
	}
}
