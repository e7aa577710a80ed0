package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/internal/testtree"
)

// -p expands "/greet World" from the workspace's skill, and system/init
// lists the skills the user can run under skills and slash_commands.
func TestPrintSlashSkill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		".claude/skills/greet/SKILL.md":  "---\nname: greet\ndescription: Greets someone.\n---\nSay hello to $0 from ${CLAUDE_SKILL_DIR}.\n",
		".claude/skills/hidden/SKILL.md": "---\nname: hidden\ndescription: Model only.\nuser-invocable: false\n---\nFacts.\n",
	})
	srv := fakemodel.Start(t, fakemodel.Say("Hello, World!"))
	cmd := indusrP(t, dir, srv, "-p", "/greet World", "--output-format", "stream-json", "--verbose")
	cmd.Env = append(cmd.Env, "HOME="+filepath.Join(dir, "home"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var init struct {
		Subtype       string   `json:"subtype"`
		Skills        []string `json:"skills"`
		SlashCommands []string `json:"slash_commands"`
		Tools         []string `json:"tools"`
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if err := json.Unmarshal([]byte(first), &init); err != nil || init.Subtype != "init" {
		t.Fatalf("first line %s: %v", first, err)
	}
	if strings.Join(init.Skills, " ") != "greet" || strings.Join(init.SlashCommands, " ") != "greet" {
		t.Errorf("skills %v, slash_commands %v", init.Skills, init.SlashCommands)
	}
	if !strings.Contains(strings.Join(init.Tools, " "), "Skill") {
		t.Errorf("tools %v lack Skill", init.Tools)
	}
	var body struct {
		Messages []struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(srv.Requests()[0].Body, &body)
	sent := body.Messages[0].Content[0].Text
	want := "Say hello to World from " + filepath.Join(dir, ".claude", "skills", "greet") + "."
	if !strings.HasSuffix(sent, want) || !strings.Contains(sent, "<command-name>/greet</command-name>") {
		t.Errorf("sent %q, want it to end %q", sent, want)
	}
}
