package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/indusagi/induscode/agents"
	"github.com/indusagi/induscode/cmd/internal/cli"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/workspace"
)

// maxPlanFile bounds a plan file: a plan is a page of tasks.
const maxPlanFile = 1 << 20

// runCrew is `indusr crew run PLAN.toml`: the plan's teammates (profiles
// of the roster) work through its tasks as subagents, each in a git
// worktree of its own under .indusvx/crews/, and the report names their
// branches. Teammates may edit files in their worktrees without asking
// unless a mode is given (flag or settings).
func runCrew(ctx context.Context, r cli.AgentRun) error {
	file := r.Args[0]
	fi, err := os.Stat(file)
	if err != nil {
		return cli.Usagef("crew run: %v", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxPlanFile {
		return cli.Usagef("crew run: %s is not a plan file (a regular file of at most %d bytes)", file, maxPlanFile)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return cli.Usagef("crew run: %v", err)
	}
	plan, err := agents.ParsePlan(file, data)
	if err != nil {
		return cli.Usagef("crew run: %v", err)
	}
	dir, err := r.WorkDir()
	if err != nil {
		return err
	}
	co, err := baseOptions(r, dir)
	if err != nil {
		return err
	}
	if co.Mode == "" {
		co.Mode = conductor.AcceptEdits // within each teammate's worktree
	}
	co.Ephemeral = true // the crew's own conversation holds no turns
	co.Session.Dir = dir
	co.OnEvent = func(e conductor.Event) {
		switch e := e.(type) {
		case conductor.SubagentStarted:
			fmt.Fprintf(r.Stderr, "indusr: %s started %s\n", e.Agent, strings.TrimPrefix(e.ToolUseID, "crew:"))
		case conductor.SubagentStopped:
			state := "done"
			if e.Result != nil && e.Result.IsError {
				state = string(e.Result.Subtype)
			}
			fmt.Fprintf(r.Stderr, "indusr: %s finished %s: %s\n", e.Agent, strings.TrimPrefix(e.ToolUseID, "crew:"), state)
		}
	}
	c, err := conductor.Open(ctx, co)
	if err != nil {
		return openError(err)
	}
	defer c.Close()
	team, err := plan.Team(c.Roster())
	if err != nil {
		return cli.Usagef("crew run: %s: %v", file, err)
	}
	// The crews' folder is made through the state folder's funnel: no
	// planted link, and a state folder that ignores itself.
	crews := workspace.At(dir).Crews()
	if err := workspace.MkdirAll(crews, 0o755); err != nil {
		return cli.Failure(fmt.Errorf("crew run: %w", err))
	}
	crew := &agents.Crew{Profiles: team, Repo: dir, Dir: crews, Runner: c.Teammates(), MaxRounds: plan.MaxRounds}
	rep, err := crew.Run(ctx, plan.Tasks)
	if rep == nil {
		return cli.Failure(err)
	}
	if r.Flags.Format == "json" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintf(r.Stdout, "%s\n", b)
	} else {
		fmt.Fprintf(r.Stdout, "crew %s: %d completed, %d failed, %d rounds\n", rep.CrewID, len(rep.Completed), len(rep.Failed), rep.Rounds)
		for _, t := range rep.Tasks {
			line := fmt.Sprintf("  %-8s %s", t.State, t.ID)
			if t.By != "" {
				line += " by " + t.By
			}
			if t.Commit != "" {
				line += " (" + t.Commit[:min(12, len(t.Commit))] + ")"
			}
			if t.Error != "" {
				line += ": " + t.Error
			}
			fmt.Fprintln(r.Stdout, line)
		}
		for _, p := range team {
			fmt.Fprintf(r.Stdout, "  branch %s (worktree %s)\n", rep.Branches[p.Name], rep.Worktrees[p.Name])
		}
	}
	switch {
	case err != nil:
		return cli.Failure(err)
	case len(rep.Failed) > 0:
		return cli.Exit(1)
	}
	return nil
}
