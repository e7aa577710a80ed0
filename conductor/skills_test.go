package conductor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testtree"
	"github.com/indusagi/induscode/provider"
)

// strs is every string of a request body, joined by newlines, so that a
// test can look for text whatever the API's shape.
func strs(body []byte) string {
	var v any
	json.Unmarshal(body, &v)
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// systemOf is the system prompt of a request of either API.
func systemOf(t *testing.T, req fakemodel.Request) string {
	t.Helper()
	var v struct {
		System any `json:"system"`
		// The Responses API's system prompt, and Gemini's.
		Instructions      any `json:"instructions"`
		SystemInstruction any `json:"systemInstruction"`
		Messages          []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(req.Body, &v)
	if v.System == nil {
		v.System = v.Instructions
	}
	if v.System == nil {
		v.System = v.SystemInstruction
	}
	if v.System != nil {
		b, _ := json.Marshal(v.System)
		return strs(b)
	}
	for _, m := range v.Messages {
		if m.Role == "system" || m.Role == "developer" {
			b, _ := json.Marshal(m.Content)
			return strs(b)
		}
	}
	t.Fatalf("no system prompt in %s", req.Body)
	return ""
}

// noUserSkills keeps the machine's own skills out of a test.
func noUserSkills(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
}

// snapshot is every file of a tree with its mode and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b := []byte{}
		if fi.Mode().IsRegular() {
			b, _ = os.ReadFile(p)
		}
		out[p] = fmt.Sprintf("%v %s", fi.Mode(), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var baseDir = regexp.MustCompile(`Base directory for this skill: (\S+)`)

// A skill folder written for Claude Code, copied into .claude/skills as
// it is, is listed to the model; the model calls Skill with its id, gets
// the instructions and the skill's folder, and runs the skill's script
// through bash under the session's permission rules. The folder is not
// changed.
func TestSkillChosenByModelRunsItsScript(t *testing.T) {
	noUserSkills(t)
	for _, api := range []string{"anthropic", "openai", "openai-chat", "gemini"} {
		t.Run(api, func(t *testing.T) {
			dir := t.TempDir()
			skill := filepath.Join(dir, ".claude", "skills", "csv-stats")
			if err := os.CopyFS(skill, os.DirFS("testdata/skills/csv-stats")); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, skill)
			os.WriteFile(filepath.Join(dir, "data.csv"), []byte("a,b,c\n1,2,3\n4,5,6\n"), 0o644)
			srv := fakemodel.Start(t)
			srv.Respond(func(n int, req fakemodel.Request) fakemodel.Reply {
				switch n {
				case 0:
					return fakemodel.Call("Skill", `{"skill":"csv-stats"}`)
				case 1:
					// The model runs the script where the result says the
					// skill is.
					m := baseDir.FindStringSubmatch(strs(req.Body))
					if m == nil {
						return fakemodel.Say("no base directory")
					}
					cmd, _ := json.Marshal(map[string]string{"command": "sh " + m[1] + "/scripts/stats.sh data.csv"})
					return fakemodel.Call("bash", string(cmd))
				}
				return fakemodel.Say("data.csv has 3 rows and 3 columns.")
			})
			var started conductor.Started
			c := open(t, dir, srv, conductor.Options{Model: modelOf(api), Allowed: []string{"Bash(sh:*)"},
				OnEvent: func(e conductor.Event) {
					if s, ok := e.(conductor.Started); ok {
						started = s
					}
				}})
			c.Begin()
			res, err := c.Run(context.Background(), "how large is data.csv?")
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || res.Text != "data.csv has 3 rows and 3 columns." {
				t.Fatalf("result %+v", res)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests", len(reqs))
			}
			sys := systemOf(t, reqs[0])
			if !strings.Contains(sys, "- csv-stats: Counts the rows and columns of CSV files. Use when the user asks how large a CSV file is.\n") {
				t.Errorf("the skill is not listed:\n%s", sys)
			}
			if !strings.Contains(string(reqs[0].Body), `"name":"Skill"`) {
				t.Errorf("no Skill tool offered")
			}
			second := strs(reqs[1].Body)
			if !strings.Contains(second, "Base directory for this skill: "+skill+"\n\n# CSV statistics\n\nRun the script") ||
				strings.Contains(second, "allowed-tools: Read") {
				t.Errorf("the Skill result is not the folder and the body without front matter:\n%s", second)
			}
			if third := strs(reqs[2].Body); !strings.Contains(third, "data.csv: 3 rows, 3 columns") {
				t.Errorf("the script's output did not reach the model:\n%s", third)
			}
			if strings.Join(started.Skills, " ") != "csv-stats" {
				t.Errorf("Started.Skills %v", started.Skills)
			}
			after := snapshot(t, skill)
			if fmt.Sprint(before) != fmt.Sprint(after) {
				t.Errorf("the skill folder changed:\n%v\n%v", before, after)
			}
		})
	}
}

// fixtureSkills writes the skills of the invocation tests.
func fixtureSkills(t *testing.T, dir string) {
	testtree.Write(t, dir, map[string]string{
		".claude/skills/args-skill/SKILL.md": "---\nname: args-skill\ndescription: Echoes its arguments.\n---\n" +
			"first=$0 second=$1 all=$ARGUMENTS dir=${CLAUDE_SKILL_DIR} session=${CLAUDE_SESSION_ID}\n",
		".claude/skills/manual-only/SKILL.md": "---\nname: manual-only\ndescription: Deploys when asked.\ndisable-model-invocation: true\n---\n" +
			"Deploy by hand.\n",
		".claude/skills/model-only/SKILL.md": "---\nname: model-only\ndescription: Background on the codebase.\nuser-invocable: false\n---\n" +
			"Background facts.\n",
	})
}

// /args-skill alpha beta sends the skill's instructions with $0, $1,
// $ARGUMENTS, ${CLAUDE_SKILL_DIR} and ${CLAUDE_SESSION_ID} substituted.
func TestSlashCommandExpands(t *testing.T) {
	noUserSkills(t)
	dir := t.TempDir()
	fixtureSkills(t, dir)
	srv := fakemodel.Start(t, fakemodel.Say("ok"))
	c := open(t, dir, srv, conductor.Options{})
	if _, err := c.Run(context.Background(), "/args-skill alpha beta"); err != nil {
		t.Fatal(err)
	}
	body := strs(srv.Requests()[0].Body)
	sdir := filepath.Join(dir, ".claude", "skills", "args-skill")
	want := "<command-name>/args-skill</command-name>\n<command-args>alpha beta</command-args>\n\nBase directory for this skill: " + sdir +
		"\n\nfirst=alpha second=beta all=alpha beta dir=" + sdir + " session=" + c.SessionID()
	if c.SessionID() == "" || !strings.Contains(body, want) {
		t.Errorf("no %q in\n%s", want, body)
	}
}

// disable-model-invocation keeps a skill out of the model's listing and
// its Skill calls, not from /name; user-invocable: false keeps one out of
// the slash commands and system/init, not from the model.
func TestInvocationFlags(t *testing.T) {
	noUserSkills(t)
	dir := t.TempDir()
	fixtureSkills(t, dir)
	srv := fakemodel.Start(t,
		fakemodel.Call("Skill", `{"skill":"manual-only"}`, "Skill", `{"skill":"model-only"}`),
		fakemodel.Say("done"),
		fakemodel.Say("deployed"),
		fakemodel.Say("plain text"))
	var started conductor.Started
	c := open(t, dir, srv, conductor.Options{OnEvent: func(e conductor.Event) {
		if s, ok := e.(conductor.Started); ok {
			started = s
		}
	}})
	c.Begin()
	if strings.Join(started.Skills, " ") != "args-skill manual-only" {
		t.Errorf("system/init skills %v, want args-skill manual-only", started.Skills)
	}
	ctx := context.Background()
	if _, err := c.Run(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	sys := systemOf(t, reqs[0])
	if strings.Contains(sys, "manual-only") || !strings.Contains(sys, "- model-only: Background on the codebase.") ||
		!strings.Contains(sys, "- args-skill: Echoes its arguments.") {
		t.Errorf("listing:\n%s", sys)
	}
	results := strs(reqs[1].Body)
	if !strings.Contains(results, `the skill "manual-only" is run only by the user (as /manual-only)`) ||
		!strings.Contains(results, "Background facts.") {
		t.Errorf("Skill results:\n%s", results)
	}
	if _, err := c.Run(ctx, "/manual-only"); err != nil {
		t.Fatal(err)
	}
	if body := strs(srv.Requests()[2].Body); !strings.Contains(body, "Deploy by hand.") {
		t.Errorf("/manual-only did not expand:\n%s", body)
	}
	if _, err := c.Run(ctx, "/model-only now"); err != nil {
		t.Fatal(err)
	}
	if body := strs(srv.Requests()[3].Body); strings.Contains(body, "<command-name>/model-only") || !strings.Contains(body, "/model-only now") {
		t.Errorf("/model-only expanded:\n%s", body)
	}
}

// The Agent SDK's skills filter narrows what the model sees and may load,
// not what the user may run.
func TestSkillFilter(t *testing.T) {
	noUserSkills(t)
	dir := t.TempDir()
	fixtureSkills(t, dir)
	srv := fakemodel.Start(t, fakemodel.Call("Skill", `{"skill":"args-skill"}`), fakemodel.Say("ok"))
	var started conductor.Started
	c := open(t, dir, srv, conductor.Options{SkillFilter: []string{"model-only"}, OnEvent: func(e conductor.Event) {
		if s, ok := e.(conductor.Started); ok {
			started = s
		}
	}})
	c.Begin()
	if _, err := c.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	sys := systemOf(t, srv.Requests()[0])
	if strings.Contains(sys, "args-skill") || !strings.Contains(sys, "- model-only:") {
		t.Errorf("listing:\n%s", sys)
	}
	if r := strs(srv.Requests()[1].Body); !strings.Contains(r, `no skill "args-skill"; the skills are: model-only`) {
		t.Errorf("result:\n%s", r)
	}
	if strings.Join(started.Skills, " ") != "args-skill manual-only" {
		t.Errorf("system/init skills %v", started.Skills)
	}
}

// 100 skills of the length of anthropics/skills' cost the model at most
// 6,000 tokens by the provider's estimate (the listing and the Skill
// tool's definition), and every one of them is named.
func TestHundredSkillsBudget(t *testing.T) {
	noUserSkills(t)
	for _, api := range []string{"anthropic", "openai", "openai-chat", "gemini"} {
		t.Run(api, func(t *testing.T) {
			bare, dir := t.TempDir(), t.TempDir()
			files := map[string]string{}
			for i := range 100 {
				id := fmt.Sprintf("generated-skill-%03d", i)
				files[".claude/skills/"+id+"/SKILL.md"] = fmt.Sprintf("---\nname: %s\ndescription: Handles task family %d, reads the inputs "+
					"the user names, converts them to the formats the team uses, checks the results against the house rules and writes "+
					"a short report. Use when the user mentions family %d, its file types, or asks for its reports or conversions.\n---\n"+
					"# Family %d\n\nSteps.\n", id, i, i, i)
			}
			testtree.Write(t, dir, files)
			size := func(dir string) (int64, string) {
				srv := fakemodel.Start(t, fakemodel.Say("ok"))
				c := open(t, dir, srv, conductor.Options{Model: modelOf(api)})
				if _, err := c.Run(context.Background(), "hi"); err != nil {
					t.Fatal(err)
				}
				body := srv.Requests()[0].Body
				return provider.EstimateTokens(string(body)), string(body)
			}
			without, _ := size(bare)
			with, body := size(dir)
			cost := with - without
			t.Logf("100 skills cost %d tokens (estimated from the request's bytes)", cost)
			if cost > 6000 {
				t.Errorf("100 skills cost %d tokens, more than 6,000", cost)
			}
			for i := range 100 {
				if !strings.Contains(body, fmt.Sprintf("generated-skill-%03d", i)) {
					t.Errorf("generated-skill-%03d is not named", i)
				}
			}
		})
	}
}

// The instructions of a skill loaded before a compaction follow the
// summary, so the model still has them: the model's Skill call and the
// user's /id alike.
func TestSkillsSurviveCompaction(t *testing.T) {
	noUserSkills(t)
	dir := t.TempDir()
	fixtureSkills(t, dir)
	testtree.Write(t, dir, map[string]string{
		".claude/skills/french/SKILL.md": "---\nname: french\ndescription: Answers in French.\n---\nAlways answer in French.\n",
	})
	srv := fakemodel.Start(t,
		fakemodel.Call("Skill", `{"skill":"french"}`),
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("bash", `{"command":"echo hi"}`)}, InputTokens: 9000},
		fakemodel.Say("Summary: the user wants French."),
		fakemodel.Say("Bonjour."))
	c := open(t, dir, srv, conductor.Options{Mode: conductor.BypassPermissions, ContextWindow: 10000})
	res, err := c.Run(context.Background(), "/args-skill one two")
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	after := strs(reqs[3].Body)
	if !strings.Contains(after, "Summary: the user wants French.") || !strings.Contains(after, "Always answer in French.") ||
		!strings.Contains(after, "first=one second=two") || strings.Contains(after, "echo hi") {
		t.Errorf("the request after the compaction:\n%s", after)
	}
}

// The user hears of skills that could not be loaded and of skills the
// listing had no room to describe.
func TestSkillNotices(t *testing.T) {
	noUserSkills(t)
	dir := t.TempDir()
	files := map[string]string{".claude/skills/broken/SKILL.md": "---\nname: broken\n"}
	for i := range 120 {
		id := fmt.Sprintf("s%02d", i)
		files[".claude/skills/"+id+"/SKILL.md"] = "---\nname: " + id + "\ndescription: " + strings.Repeat("Does many things well. ", 12) + "\n---\nbody\n"
	}
	testtree.Write(t, dir, files)
	srv := fakemodel.Start(t)
	var notices []string
	c := open(t, dir, srv, conductor.Options{ContextWindow: 1000, OnEvent: func(e conductor.Event) {
		if n, ok := e.(conductor.Notice); ok {
			notices = append(notices, n.Text)
		}
	}})
	c.Begin()
	all := strings.Join(notices, "\n")
	if !strings.Contains(all, "1 skill file(s) could not be loaded; indusr skills check says why") ||
		!regexp.MustCompile(`\d+ skills are named but not described to the model, for lack of room in the context window: .*s99$`).MatchString(all) {
		t.Errorf("notices:\n%s", all)
	}
}
