package skills_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
	"github.com/indusagi/induscode/skills"
)

// repo makes a repository folder (with .git) and a home of its own, so
// that no test sees the skills of the machine's user.
func repo(t *testing.T) (dir, home string) {
	t.Helper()
	base := t.TempDir()
	dir, home = filepath.Join(base, "repo"), filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(dir, ".git"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, home
}

func discover(dir, home string) *skills.Set {
	return skills.Discover(skills.Options{Dir: dir, Home: home, ConfigHome: filepath.Join(home, ".config")})
}

func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n" + body + "\n"
}

// noProblems fails on any problem above a note.
func noProblems(t *testing.T, set *skills.Set) {
	t.Helper()
	for _, p := range set.Problems {
		if p.Severity != skills.Info {
			t.Errorf("problem: %s", p)
		}
	}
}

// Front matter in the patterns of anthropics/skills (plain, no license,
// a quoted description with colons, a block scalar) loads without a
// problem, with each field as written.
func TestAnthropicPatternsLoad(t *testing.T) {
	dir, home := repo(t)
	if err := os.CopyFS(filepath.Join(dir, ".claude", "skills"), os.DirFS("testdata/anthropic")); err != nil {
		t.Fatal(err)
	}
	set := discover(dir, home)
	noProblems(t, set)
	var ids []string
	for _, s := range set.Skills {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, " "); got != "claude-api docx mcp-builder pdf skill-creator" {
		t.Fatalf("skills %q", got)
	}
	pdf, _ := set.Lookup("pdf")
	if pdf.License != "Proprietary. LICENSE.txt has complete terms" || pdf.Scope != skills.Project ||
		!strings.HasPrefix(pdf.Description, "Use this skill whenever the user wants to do anything with PDF files.") ||
		!strings.HasSuffix(pdf.Description, "use this skill.") || pdf.Dir != filepath.Join(dir, ".claude", "skills", "pdf") {
		t.Errorf("pdf %+v", pdf)
	}
	if !strings.HasPrefix(pdf.Body, "# Working with PDF files\n") {
		t.Errorf("pdf body %q", pdf.Body)
	}
	if sc, _ := set.Lookup("skill-creator"); sc.License != "" || !sc.UserInvocable || sc.DisableModelInvocation {
		t.Errorf("skill-creator %+v", sc)
	}
	if d, _ := set.Lookup("docx"); !strings.Contains(d.Description, "Triggers include: any mention of 'Word doc'") {
		t.Errorf("docx description %q", d.Description)
	}
	api, _ := set.Lookup("claude-api")
	if want := "Build apps with the Claude API or Anthropic SDK. TRIGGER when: code imports `anthropic` or the user asks for the Claude API. SKIP: code that imports `openai` or another provider's SDK."; api.Description != want {
		t.Errorf("claude-api description %q", api.Description)
	}
}

// The order of the issue: .claude/skills, .agents/skills from the
// repository's root down to the working folder, .indus/skills, then the
// user's folders; the first skill of an id wins and the others are noted.
func TestDiscoveryOrder(t *testing.T) {
	dir, home := repo(t)
	cwd := filepath.Join(dir, "sub", "pkg")
	conf := filepath.Join(home, ".config")
	places := map[string]string{
		"claude":      filepath.Join(cwd, ".claude", "skills"),
		"agents-root": filepath.Join(dir, ".agents", "skills"),
		"agents-sub":  filepath.Join(dir, "sub", ".agents", "skills"),
		"agents-cwd":  filepath.Join(cwd, ".agents", "skills"),
		"indus":       filepath.Join(cwd, ".indus", "skills"),
		"user-claude": filepath.Join(home, ".claude", "skills"),
		"user-agents": filepath.Join(home, ".agents", "skills"),
		"user-config": filepath.Join(conf, "indusvx", "skills"),
	}
	order := []string{"claude", "agents-root", "agents-sub", "agents-cwd", "indus", "user-claude", "user-agents", "user-config"}
	files := map[string]string{}
	for i, place := range order {
		// Every place has its own skill and the shared one; a place holds
		// also the own skill of the place after it, which must lose.
		files[place+"/only-"+place+"/SKILL.md"] = skillMD("only-"+place, "Own skill of "+place+".", "body")
		files[place+"/shared/SKILL.md"] = skillMD("shared", "Shared, from "+place+".", "body")
		if i+1 < len(order) {
			files[place+"/only-"+order[i+1]+"/SKILL.md"] = skillMD("only-"+order[i+1], "Stolen by "+place+".", "body")
		}
	}
	// A folder above the repository is never read.
	files["outside/only-outside/SKILL.md"] = skillMD("only-outside", "Above the repository.", "body")
	base := t.TempDir()
	testtree.Write(t, base, files)
	for place, path := range places {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.Rename(filepath.Join(base, place), path); err != nil {
			t.Fatal(err)
		}
	}
	os.Rename(filepath.Join(base, "outside"), filepath.Join(filepath.Dir(dir), ".agents", "skills"))

	set := skills.Discover(skills.Options{Dir: cwd, Home: home, ConfigHome: conf})
	noProblems(t, set)
	var got []string
	for _, s := range set.Skills {
		got = append(got, s.ID+"="+s.Description)
	}
	want := []string{
		"only-agents-root=Stolen by claude.", "only-claude=Own skill of claude.", "shared=Shared, from claude.",
		"only-agents-sub=Stolen by agents-root.",
		"only-agents-cwd=Stolen by agents-sub.",
		"only-indus=Stolen by agents-cwd.",
		"only-user-claude=Stolen by indus.",
		"only-user-agents=Stolen by user-claude.",
		"only-user-config=Stolen by user-agents.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("skills:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s, _ := set.Lookup("only-user-claude"); s.Scope != skills.Project {
		t.Errorf("only-user-claude from the project's .indus is of scope %s", s.Scope)
	}
	if s, _ := set.Lookup("only-user-config"); s.Scope != skills.User {
		t.Errorf("only-user-config is of scope %s", s.Scope)
	}
	// Every losing copy is noted, naming the winner.
	notes := 0
	for _, p := range set.Problems {
		if p.Severity == skills.Info && strings.Contains(p.Message, "comes first") {
			notes++
		}
	}
	if notes != 14 {
		t.Errorf("%d notes of skills not used, want 14 (7 shared, 7 own skills shadowed): %v", notes, set.Problems)
	}
}

// Skills nested two levels down, hidden folders and loose files are not
// skills; a folder without SKILL.md says so.
func TestOnlyDirectChildren(t *testing.T) {
	dir, home := repo(t)
	testtree.Write(t, dir, map[string]string{
		".claude/skills/group/nested/SKILL.md": skillMD("nested", "Too deep.", "body"),
		".claude/skills/.hidden/SKILL.md":      skillMD("hidden", "Hidden.", "body"),
		".claude/skills/README.md":             "not a skill",
		".claude/skills/lower/skill.md":        skillMD("lower", "Lowercase file name.", "body"),
	})
	set := discover(dir, home)
	if len(set.Skills) != 1 || set.Skills[0].ID != "lower" {
		t.Fatalf("skills %+v", set.Skills)
	}
	msgs := problems(set)
	for _, want := range []string{
		filepath.Join(dir, ".claude/skills/group") + ": error: no SKILL.md: a skill is a folder holding SKILL.md (folders nested deeper are not searched)",
		filepath.Join(dir, ".claude/skills/lower/skill.md") + ": warning: the file is named skill.md; the format names it SKILL.md",
	} {
		if !strings.Contains(msgs, want) {
			t.Errorf("no problem %q in\n%s", want, msgs)
		}
	}
}

func problems(set *skills.Set) string {
	var b strings.Builder
	for _, p := range set.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// A session in the home folder reads ~/.claude/skills once, as the
// project's, without noting each skill as found twice.
func TestHomeAsWorkspace(t *testing.T) {
	_, home := repo(t)
	testtree.Write(t, home, map[string]string{".claude/skills/mine/SKILL.md": skillMD("mine", "Mine.", "body")})
	set := discover(home, home)
	if len(set.Skills) != 1 || set.Skills[0].Scope != skills.Project || len(set.Problems) != 0 {
		t.Errorf("skills %+v, problems %v", set.Skills, set.Problems)
	}
}
