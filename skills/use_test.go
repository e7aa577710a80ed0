package skills_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
	"github.com/indusagi/induscode/skills"
	"github.com/indusagi/induscode/tool"
)

// generated writes n skills with descriptions of the length of
// anthropics/skills' (some 300 characters) into dir's .claude/skills.
func generated(t testing.TB, dir string, n int) {
	files := map[string]string{}
	for i := range n {
		id := fmt.Sprintf("generated-skill-%03d", i)
		desc := fmt.Sprintf("Handles task family %d, reads the inputs the user names, converts them to the formats the team uses, "+
			"checks the results against the house rules and writes a short report. Use when the user mentions family %d, "+
			"its file types, or asks for its reports or conversions.", i, i)
		files[".claude/skills/"+id+"/SKILL.md"] = skillMD(id, desc, "# Family "+id+"\n\nSteps.")
	}
	testtree.Write(t, dir, files)
}

// The listing of 100 skills stays within the budget of a 200k window
// (2%: 16,000 bytes, 4,000 tokens at four bytes a token), descriptions
// shortened but every skill listed; a tighter budget names the skills it
// leaves out.
func TestListingBudget(t *testing.T) {
	dir, home := repo(t)
	generated(t, dir, 100)
	set := discover(dir, home)
	noProblems(t, set)
	budget := skills.Budget(200_000)
	if budget != 16_000 {
		t.Fatalf("budget %d", budget)
	}
	text, omitted := skills.Listing(set.ForModel(nil), budget)
	if len(text) > budget || len(omitted) != 0 {
		t.Fatalf("listing of %d bytes, %d omitted", len(text), len(omitted))
	}
	for _, s := range set.Skills {
		if !strings.Contains(text, "\n- "+s.ID+": Handles task family") {
			t.Errorf("%s not listed", s.ID)
		}
	}
	if !strings.Contains(text, "…\n") {
		t.Errorf("no description was shortened:\n%s", text)
	}

	text, omitted = skills.Listing(set.ForModel(nil), 4000)
	if len(text) > 4000 || len(omitted) == 0 {
		t.Fatalf("listing of %d bytes, %d omitted", len(text), len(omitted))
	}
	if !strings.Contains(text, fmt.Sprintf("%d more skills are not described for lack of room", len(omitted))) ||
		!strings.Contains(text, strings.Join(omitted, ", ")) {
		t.Errorf("the skills left out are not named:\n%s", text)
	}

	// With room, each line is "- id: description", the display name
	// beside an id it differs from.
	small := &skills.Set{Skills: []*skills.Skill{{ID: "a", Description: "Does a."}, {ID: "dir-name-x", Name: "other-name", Description: "Does x."}}}
	text, _ = skills.Listing(small.ForModel(nil), skills.Budget(0))
	if !strings.HasSuffix(text, ":\n\n- a: Does a.\n- dir-name-x (other-name): Does x.\n") {
		t.Errorf("listing %q", text)
	}
}

func argsSkill(t *testing.T) (*skills.Set, string) {
	dir, home := repo(t)
	testtree.Write(t, dir, map[string]string{
		".claude/skills/args-skill/SKILL.md": skillMD("args-skill", "Echoes its arguments.",
			"all=$ARGUMENTS first=$0 second=$1 again=$ARGUMENTS[1] none=$7 dir=${CLAUDE_SKILL_DIR} session=${CLAUDE_SESSION_ID} cost=$ price"),
		".claude/skills/plain/SKILL.md": skillMD("plain", "Has no placeholders.", "Do the plain thing."),
		".claude/skills/manual-only/SKILL.md": "---\nname: manual-only\ndescription: Only when asked.\ndisable-model-invocation: true\n---\n" +
			"Run by hand.\n",
		".claude/skills/model-only/SKILL.md": "---\nname: model-only\ndescription: Background knowledge.\nuser-invocable: false\n---\n" +
			"Known to the model.\n",
	})
	return discover(dir, home), dir
}

// /id args substitutes the placeholders as Claude Code does; $id mentions
// add the instructions as Codex does; user-invocable: false keeps a skill
// from both.
func TestExpand(t *testing.T) {
	set, dir := argsSkill(t)
	sdir := filepath.Join(dir, ".claude", "skills", "args-skill")
	got, used := set.Expand(`/args-skill alpha "beta gamma"`, "sess-1")
	want := "<command-message>args-skill</command-message>\n<command-name>/args-skill</command-name>\n" +
		"<command-args>alpha \"beta gamma\"</command-args>\n\nBase directory for this skill: " + sdir + "\n\n" +
		"all=alpha \"beta gamma\" first=alpha second=beta gamma again=beta gamma none= dir=" + sdir + " session=sess-1 cost=$ price"
	if got != want || len(used) != 1 {
		t.Errorf("expanded\n%q\nwant\n%q", got, want)
	}
	got, _ = set.Expand("/plain one two", "s")
	if !strings.HasSuffix(got, "Do the plain thing.\n\nARGUMENTS: one two") {
		t.Errorf("arguments of a body without placeholders: %q", got)
	}
	if got, _ := set.Expand("/manual-only", "s"); !strings.HasSuffix(got, "Run by hand.") {
		t.Errorf("disable-model-invocation keeps /manual-only from the user: %q", got)
	}
	for _, p := range []string{"/model-only now", "/etc/hosts is odd", "/unknown x", "no slash"} {
		if got, used := set.Expand(p, "s"); got != p || used != nil {
			t.Errorf("%q expanded to %q", p, got)
		}
	}
	got, used = set.Expand("Tidy up with $plain and $HOME, then $plain again; $model-only stays.", "s")
	if len(used) != 1 || used[0] != "plain" || strings.Count(got, "Do the plain thing.") != 1 ||
		!strings.HasPrefix(got, "Tidy up with $plain and $HOME, then $plain again; $model-only stays.\n\n<skill name=\"plain\">") {
		t.Errorf("mentions: %v\n%s", used, got)
	}
}

func TestSkillTool(t *testing.T) {
	set, dir := argsSkill(t)
	tl := skills.Tool(set, nil, func() string { return "sess-2" })
	run := func(in string) tool.Result {
		return tl.Run(context.Background(), json.RawMessage(in), tool.NewEnv(dir))
	}
	r := run(`{"skill":"args-skill","args":"x y"}`)
	sdir := filepath.Join(dir, ".claude", "skills", "args-skill")
	if r.IsError || !strings.HasPrefix(r.PlainText(), "Base directory for this skill: "+sdir+"\n\nall=x y first=x second=y") ||
		!strings.Contains(r.PlainText(), "session=sess-2") {
		t.Errorf("result %+v", r)
	}
	if r := run(`{"skill":"model-only"}`); r.IsError || !strings.Contains(r.PlainText(), "Known to the model.") {
		t.Errorf("user-invocable: false keeps model-only from the model: %+v", r)
	}
	if r := run(`{"skill":"manual-only"}`); !r.IsError || !strings.Contains(r.PlainText(), "run only by the user (as /manual-only)") {
		t.Errorf("manual-only: %+v", r)
	}
	if r := run(`{"skill":"nope"}`); !r.IsError || r.PlainText() != `no skill "nope"; the skills are: args-skill, model-only, plain` {
		t.Errorf("unknown: %+v", r)
	}
	if r := run(`{}`); !r.IsError {
		t.Errorf("no id: %+v", r)
	}
	narrowed := skills.Tool(set, []string{"plain"}, nil)
	if r := narrowed.Run(context.Background(), json.RawMessage(`{"skill":"args-skill"}`), nil); !r.IsError ||
		r.PlainText() != `no skill "args-skill"; the skills are: plain` {
		t.Errorf("narrowed: %+v", r)
	}
	if got := set.UserInvocable(); strings.Join(got, " ") != "args-skill manual-only plain" {
		t.Errorf("user-invocable %v", got)
	}
}

// BenchmarkDiscoverAndList is a session's start with 100 skills: find
// and parse them, and compose the model's listing.
func BenchmarkDiscoverAndList(b *testing.B) {
	base := b.TempDir()
	testtree.Write(b, base, map[string]string{"repo/.git/HEAD": "ref: x\n"})
	dir := filepath.Join(base, "repo")
	generated(b, dir, 100)
	b.ReportAllocs()
	for b.Loop() {
		set := skills.Discover(skills.Options{Dir: dir, NoUser: true})
		if len(set.Skills) != 100 {
			b.Fatalf("%d skills", len(set.Skills))
		}
		skills.Listing(set.ForModel(nil), skills.Budget(200_000))
	}
}
