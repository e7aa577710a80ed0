//go:build unix

package skills_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/indusagi/induscode/internal/testtree"
	"github.com/indusagi/induscode/skills"
)

// Each malformed skill gives a clear message naming its file and line;
// only one that cannot be read as a skill is left out, and the others
// beside it still load.
func TestMalformed(t *testing.T) {
	long := strings.Repeat("Describes a thing at length. ", 175) // 5,074 characters once trimmed
	for _, tc := range []struct {
		name   string
		files  map[string]string // under .claude/skills
		setup  func(t *testing.T, skillsDir, outside string)
		loaded bool
		file   string // relative to .claude/skills
		line   int
		sev    skills.Severity
		msg    string
		check  func(t *testing.T, s *skills.Skill)
	}{
		{name: "no closing ---", files: map[string]string{"open/SKILL.md": "---\nname: open\ndescription: Never closed.\n\n# Body\n"},
			file: "open/SKILL.md", line: 1, sev: skills.Error,
			msg: "the front matter opened on line 1 is never closed: end the fields with a line holding only ---"},
		{name: "tab indentation", files: map[string]string{"tabs/SKILL.md": "---\nname: tabs\n\tdescription: Indented with a tab.\n---\nbody\n"},
			file: "tabs/SKILL.md", line: 3, sev: skills.Error, msg: "(YAML allows no tabs for indentation: use spaces)"},
		{name: "5 KB description", files: map[string]string{"long/SKILL.md": skillMD("long", long, "body")},
			loaded: true, file: "long/SKILL.md", line: 3, sev: skills.Warning,
			msg: "description has 5074 characters; the format allows 1024, and it is cut at 1536",
			check: func(t *testing.T, s *skills.Skill) {
				if n := len([]rune(s.Description)); n != 1536 || !strings.HasSuffix(s.Description, "…") {
					t.Errorf("description of %d characters ending %q", n, s.Description[len(s.Description)-10:])
				}
			}},
		{name: "name with capitals", files: map[string]string{"bad-name/SKILL.md": skillMD("Bad_Name", "A name that breaks the rules.", "body")},
			loaded: true, file: "bad-name/SKILL.md", line: 2, sev: skills.Warning,
			msg: `name "Bad_Name" has capital letters; names are lowercase`,
			check: func(t *testing.T, s *skills.Skill) {
				if s.ID != "bad-name" || s.Name != "Bad_Name" {
					t.Errorf("id %q name %q", s.ID, s.Name)
				}
			}},
		{name: "missing SKILL.md", files: map[string]string{"empty/notes.md": "no skill here"},
			file: "empty", sev: skills.Error, msg: "no SKILL.md: a skill is a folder holding SKILL.md"},
		{name: "SKILL.md linked out of the repository",
			setup: func(t *testing.T, dir, outside string) {
				os.MkdirAll(filepath.Join(dir, "evil"), 0o755)
				os.WriteFile(filepath.Join(outside, "secret.md"), []byte(skillMD("evil", "Read from outside.", "secret")), 0o644)
				if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "evil", "SKILL.md")); err != nil {
					t.Fatal(err)
				}
			},
			file: "evil/SKILL.md", sev: skills.Error, msg: "not read: it is (or lies under) a link that leads out of the workspace"},
		{name: "skill folder linked out of the repository",
			setup: func(t *testing.T, dir, outside string) {
				os.MkdirAll(filepath.Join(outside, "evil"), 0o755)
				os.WriteFile(filepath.Join(outside, "evil", "SKILL.md"), []byte(skillMD("evil", "Read from outside.", "secret")), 0o644)
				if err := os.Symlink(filepath.Join(outside, "evil"), filepath.Join(dir, "evil")); err != nil {
					t.Fatal(err)
				}
			},
			file: "evil", sev: skills.Error, msg: "not read: it is (or lies under) a link that leads out of the workspace"},
		{name: "named pipe",
			setup: func(t *testing.T, dir, _ string) {
				os.MkdirAll(filepath.Join(dir, "pipe"), 0o755)
				if err := syscall.Mkfifo(filepath.Join(dir, "pipe", "SKILL.md"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			file: "pipe/SKILL.md", sev: skills.Error, msg: "not read: it is a named pipe"},
		{name: "huge file",
			setup: func(t *testing.T, dir, _ string) {
				os.MkdirAll(filepath.Join(dir, "huge"), 0o755)
				if err := os.WriteFile(filepath.Join(dir, "huge", "SKILL.md"), []byte(skillMD("huge", "Big.", "")), 0o644); err != nil {
					t.Fatal(err)
				}
				os.Truncate(filepath.Join(dir, "huge", "SKILL.md"), 1<<30) // sparse
			},
			file: "huge/SKILL.md", sev: skills.Error, msg: "not read: it holds more than 262144 bytes (1073741824)"},
		{name: "no front matter", files: map[string]string{"plain/SKILL.md": "\n# Tidy the changelog\n\nSort the entries.\n"},
			loaded: true, file: "plain/SKILL.md", line: 1, sev: skills.Warning, msg: "no front matter",
			check: func(t *testing.T, s *skills.Skill) {
				if s.Description != "Tidy the changelog" {
					t.Errorf("description %q", s.Description)
				}
			}},
		{name: "unquoted colon", files: map[string]string{"colon/SKILL.md": "---\nname: colon\ndescription: Use when: the user asks.\n---\nbody\n"},
			loaded: true, file: "colon/SKILL.md", line: 3, sev: skills.Warning, msg: "it was read as text, but quote it",
			check: func(t *testing.T, s *skills.Skill) {
				if s.Description != "Use when: the user asks." {
					t.Errorf("description %q", s.Description)
				}
			}},
		{name: "not a mapping", files: map[string]string{"list/SKILL.md": "---\n- name\n- description\n---\nbody\n"},
			file: "list/SKILL.md", line: 2, sev: skills.Error, msg: "the front matter is not a set of fields"},
		{name: "no description or heading", files: map[string]string{"bare/SKILL.md": "---\nname: bare\n---\n"},
			file: "bare/SKILL.md", line: 1, sev: skills.Error, msg: "no description, and no heading in the instructions to use instead"},
		{name: "duplicate field", files: map[string]string{"dup/SKILL.md": "---\nname: dup\ndescription: One.\ndescription: Two.\n---\nbody\n"},
			loaded: true, file: "dup/SKILL.md", line: 4, sev: skills.Warning, msg: `field "description" is given twice (also on line 3); the last is used`,
			check: func(t *testing.T, s *skills.Skill) {
				if s.Description != "Two." {
					t.Errorf("description %q", s.Description)
				}
			}},
		{name: "unknown field", files: map[string]string{"extra/SKILL.md": "---\nname: extra\ndescription: Extra.\nversion: 2\n---\nbody\n"},
			loaded: true, file: "extra/SKILL.md", line: 4, sev: skills.Warning, msg: `unknown field "version" is ignored`},
		{name: "flag not a boolean", files: map[string]string{"flag/SKILL.md": "---\nname: flag\ndescription: Flag.\nuser-invocable: nope\n---\nbody\n"},
			loaded: true, file: "flag/SKILL.md", line: 4, sev: skills.Warning, msg: "user-invocable must be true or false; true is assumed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := repo(t)
			sd := filepath.Join(dir, ".claude", "skills")
			files := map[string]string{"good/SKILL.md": skillMD("good", "A good neighbour.", "body")}
			for k, v := range tc.files {
				files[k] = v
			}
			testtree.Write(t, sd, files)
			if tc.setup != nil {
				tc.setup(t, sd, t.TempDir())
			}
			set := discover(dir, home)
			if _, ok := set.Lookup("good"); !ok {
				t.Errorf("the good skill beside it was not loaded")
			}
			want := skills.Problem{File: filepath.Join(sd, tc.file), Line: tc.line, Severity: tc.sev}
			found := false
			for _, p := range set.Problems {
				if p.File == want.File && p.Line == want.Line && p.Severity == want.Severity && strings.Contains(p.Message, tc.msg) {
					found = true
				}
			}
			if !found {
				t.Errorf("no problem %s line %d %s %q in\n%s", want.File, want.Line, want.Severity, tc.msg, problems(set))
			}
			id := strings.Split(tc.file, "/")[0]
			s, ok := set.Lookup(id)
			if ok != tc.loaded {
				t.Fatalf("loaded %v, want %v", ok, tc.loaded)
			}
			if ok && tc.check != nil {
				tc.check(t, s)
			}
			if ok && strings.Contains(s.Body, "secret") {
				t.Errorf("read through a link out of the repository")
			}
		})
	}
}

// FuzzParse: no input makes loading panic, and a loaded skill always has
// an id and a one-line description within the cut.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		skillMD("a", "b", "c"), "---\n", "---\n---\n", "---\nname: [\n---\n", "---\nname: x\n\tdescription: y\n---\n",
		"---\na: &a [*a]\n---\n", "# heading only", "---\nmetadata:\n  k: [1]\nallowed-tools:\n  - Read\n---\nb",
		"---\ndescription: Use when: x\n---\n$ARGUMENTS $0 ${CLAUDE_SKILL_DIR}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "s"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "s", "SKILL.md"), []byte(content), 0o644)
		s, probs := skills.LoadDir(filepath.Join(dir, "s"))
		if s == nil {
			if len(probs) == 0 {
				t.Fatal("skipped without a problem")
			}
			return
		}
		if s.ID != "s" || s.Description == "" || strings.Contains(s.Description, "\n") || len([]rune(s.Description)) > skills.MaxDescription {
			t.Fatalf("skill %+v", s)
		}
		s.Instructions("a b", "sid")
	})
}
