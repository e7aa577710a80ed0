package agents

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/indusagi/induscode/deck/cards"
)

// Roster turns subagent profiles into the task card's roster: one agent
// per profile, each launched with the argv template of the host's
// delegate command (such as {"claude", "-p", "{objective}"}). A
// profile's prompt leads the objective, and the description names its
// model and tool collection, so the model choosing an agent sees them.
// The template is never parsed by a shell (see cards.CommandAgent).
func Roster(profiles []Profile, argv []string) []cards.CommandAgent {
	out := make([]cards.CommandAgent, 0, len(profiles))
	for _, p := range profiles {
		a := cards.CommandAgent{Name: p.Name, Description: describe(p), Argv: make([]string, len(argv))}
		for i, arg := range argv {
			if p.Prompt != "" {
				arg = strings.ReplaceAll(arg, "{objective}", p.Prompt+"\n\n{objective}")
			}
			a.Argv[i] = arg
		}
		out = append(out, a)
	}
	return out
}

// Describe is the roster's line for p: its description (else the
// first line of its prompt), its model and its tools.
func Describe(p Profile) string { return describe(p) }

func describe(p Profile) string {
	var parts []string
	if d := strings.TrimSpace(p.Description); d != "" {
		parts = append(parts, strings.Join(strings.Fields(d), " "))
	} else if p.Prompt != "" {
		first, _, _ := strings.Cut(p.Prompt, "\n")
		parts = append(parts, first)
	}
	if p.Model != "" {
		parts = append(parts, "model "+p.Model)
	}
	if tools := p.ToolNames(); len(tools) > 0 {
		parts = append(parts, "tools "+strings.Join(tools, ", "))
	} else if p.ToolCollection != "" {
		parts = append(parts, "tools "+p.ToolCollection)
	}
	if len(parts) == 0 {
		return "subagent " + p.Name
	}
	return strings.Join(parts, "; ")
}

// CardRunner runs crew teammates through the task card's command runner
// (cards.CommandRunner): each task is one delegation to the teammate's
// roster entry, run in the teammate's worktree as its own process group.
// The teammate's model and tool collection reach the command as
// INDUSR_AGENT_MODEL and INDUSR_AGENT_TOOLS.
type CardRunner struct {
	Argv    []string      // the delegate template, as for Roster
	Timeout time.Duration // per task; 0 means the card's default
}

var _ TeammateRunner = CardRunner{}

// RunTask delegates t to p in dir.
func (r CardRunner) RunTask(ctx context.Context, p Profile, t Task, dir string) (string, error) {
	if len(r.Argv) == 0 {
		return "", fmt.Errorf("no delegate command for teammate %s", p.Name)
	}
	cr := &cards.CommandRunner{Dir: dir, Timeout: r.Timeout, Roster: Roster([]Profile{p}, r.Argv),
		Env: []string{"INDUSR_AGENT_MODEL=" + p.Model, "INDUSR_AGENT_TOOLS=" + p.ToolCollection}}
	return cr.Run(ctx, cards.Delegation{Objective: t.Prompt, Agent: p.Name})
}
