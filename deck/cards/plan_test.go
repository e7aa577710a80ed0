package cards

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/indusagi/induscode/tool"
)

func TestPlanSlug(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, plan, want string }{
		{"first line", "# Add OAuth login\n\n1. step", "add-oauth-login"},
		{"skips blank lines", "\n  \n\t\nFix bug #42 in parser.go\nmore", "fix-bug-42-in-parser-go"},
		{"empty", "", "plan"},
		{"blank", " \n\t\n ", "plan"},
		{"only punctuation", "### --- !!!", "plan"},
		{"unicode letters kept", "Überarbeite die Größe — 日本語テスト", "überarbeite-die-größe-日本語テスト"},
		{"path characters dropped", "../../etc/passwd; rm -rf /", "etc-passwd-rm-rf"},
		{"long", strings.Repeat("word ", 30), "word-word-word-word-word-word-word-word-word-word"[:MaxSlug]},
		{"long unicode", strings.Repeat("é", 100), strings.Repeat("é", MaxSlug)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := PlanSlug(tc.plan)
			if got != tc.want {
				t.Errorf("PlanSlug(%q) = %q, want %q", tc.plan, got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > MaxSlug || strings.ContainsAny(got, `/\:*?"<>| `) ||
				strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") {
				t.Errorf("slug %q (%d characters) is not file-system safe", got, n)
			}
		})
	}
}

func TestWritePlanNeverCollides(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := regexp.MustCompile(`^[0-9a-z]+-ship-it\.md$`)
	seen := map[string]bool{}
	for i := range 20 {
		plan := "Ship it\nversion " + string(rune('a'+i))
		path, err := WritePlan(dir, plan)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(path) != filepath.Join(dir, ".indusvx", "plans") || !name.MatchString(filepath.Base(path)) {
			t.Errorf("plan written to %s", path)
		}
		if seen[path] {
			t.Fatalf("plan %d overwrote %s", i, path)
		}
		seen[path] = true
		if got, ok := ReadPlan(path); !ok || got != plan {
			t.Errorf("ReadPlan(%s) = %q, %v", path, got, ok)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".indusvx", "plans")); len(entries) != 20 {
		t.Errorf("%d plan files, want 20", len(entries))
	}
	if got := PlanFilePath(dir, "x"); got != filepath.Join(dir, ".indusvx", "plans", "x.md") {
		t.Errorf("PlanFilePath = %s", got)
	}
}

func TestReadPlanMissingOrUnreadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "missing.md"), dir, ""} {
		if got, ok := ReadPlan(path); ok || got != "" {
			t.Errorf("ReadPlan(%q) = %q, %v; want nothing", path, got, ok)
		}
	}
}

func TestPlanModeMarkers(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	enter, exit := EnterPlanMode(), ExitPlanMode()
	if !enter.Spec().ReadOnly || !exit.Spec().ReadOnly {
		t.Error("plan tools must be read-only so a permission gate always lets them through")
	}
	r := run(t, enter, env, map[string]any{})
	if r.IsError || string(r.Blocks[0].JSON) != `{"applied":false,"enterPlanMode":true}` || !strings.Contains(r.PlainText(), "only explore") {
		t.Errorf("enter_plan_mode: %s", r.PlainText())
	}
	if r := run(t, enter, env, map[string]any{"plan": "x"}); !r.IsError {
		t.Error("enter_plan_mode accepted input")
	}
	r = run(t, exit, env, map[string]any{"plan": "1. do it"})
	var marker struct {
		ExitPlan bool   `json:"exitPlan"`
		Plan     string `json:"plan"`
	}
	if r.IsError || json.Unmarshal(r.Blocks[0].JSON, &marker) != nil || !marker.ExitPlan || marker.Plan != "1. do it" {
		t.Errorf("exit_plan_mode: %s", r.PlainText())
	}
	for _, in := range []map[string]any{{}, {"plan": "  \n"}} {
		if r := run(t, exit, env, in); !r.IsError || !strings.Contains(text(r), "plan") {
			t.Errorf("exit_plan_mode %v: %s", in, text(r))
		}
	}
	if _, err := os.Stat(filepath.Join(env.Dir, ".indusvx")); err == nil {
		t.Error("the plan tools wrote to the workspace")
	}
}
