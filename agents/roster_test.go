package agents

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRoster(t *testing.T) {
	argv := []string{"agent", "--prompt", "{objective}", "--as", "{agent}"}
	r := Roster([]Profile{
		{Name: "reviewer", Model: "m1", ToolCollection: "authoring", Prompt: "Review carefully.\nSecond line."},
		{Name: "plain"},
	}, argv)
	if len(r) != 2 || r[0].Name != "reviewer" || r[1].Name != "plain" {
		t.Fatalf("roster %+v", r)
	}
	if r[0].Description != "Review carefully.; model m1; tools authoring" || r[1].Description != "subagent plain" {
		t.Errorf("descriptions %q / %q", r[0].Description, r[1].Description)
	}
	want := []string{"agent", "--prompt", "Review carefully.\nSecond line.\n\n{objective}", "--as", "{agent}"}
	if !slices.Equal(r[0].Argv, want) || !slices.Equal(r[1].Argv, argv) {
		t.Errorf("argv %q / %q", r[0].Argv, r[1].Argv)
	}
	if argv[2] != "{objective}" {
		t.Error("Roster changed the caller's template")
	}
}

// The crew's teammates run through the task card's command runner: the
// agent is a real process in the teammate's worktree, the objective one
// argv element (never shell), the profile's prompt ahead of it.
func TestCrewThroughTaskCardRunner(t *testing.T) {
	repo := gitRepo(t)
	script := `printf '%s|%s|%s\n' "$1" "$INDUSR_AGENT_MODEL" "$2" > "out-$1.txt"; [ "$1" != breaker ]`
	crew := &Crew{
		Profiles: []Profile{{Name: "writer", Model: "m-w", Prompt: "You write."}, {Name: "breaker"}},
		Repo:     repo,
		Dir:      t.TempDir(),
		Runner:   CardRunner{Argv: []string{"sh", "-c", script, "sh", "{agent}", "{objective}"}},
	}
	rep, err := crew.Run(context.Background(), []Task{
		{ID: "w", Prompt: `quote " and ; rm -rf ~`, Assign: "writer"},
		{ID: "b", Prompt: "break", Assign: "breaker"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Completed, ",") != "w" || strings.Join(rep.Failed, ",") != "b" || rep.Rounds != 1 {
		t.Errorf("report %+v", rep)
	}
	got, err := os.ReadFile(filepath.Join(rep.Worktrees["writer"], "out-writer.txt"))
	want := "writer|m-w|You write.\n\nquote \" and ; rm -rf ~\n"
	if err != nil || string(got) != want {
		t.Errorf("writer wrote %q (%v), want %q", got, err, want)
	}
}
