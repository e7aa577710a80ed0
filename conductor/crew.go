package conductor

import (
	"context"
	"fmt"

	"github.com/indusagi/induscode/agents"
)

// Teammates is a crew's teammate runner on c's engine ([agents.Crew]'s
// Runner): each task is a subagent conversation of the teammate's profile
// (as the task card runs one, with c's settings, rules and mode or a
// stricter one) whose workspace is the teammate's git worktree. Its
// events reach c's OnEvent as [SubagentEvent] values marked "crew:" and
// the task's id, and subagent:start and subagent:stop fire in c's
// session. The task's output is the subagent's answer; a subagent that
// stops with an error fails the task.
func (c *Conductor) Teammates() agents.TeammateRunner { return teammates{c} }

type teammates struct{ c *Conductor }

func (t teammates) RunTask(ctx context.Context, p agents.Profile, task agents.Task, dir string) (string, error) {
	res, _, _, err := t.c.runSubagent(ctx, p, "crew:"+task.ID, dir, task.Prompt)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return res.Text, fmt.Errorf("teammate %s stopped (%s): %s", p.Name, res.Subtype, res.Text)
	}
	return res.Text, nil
}

// Roster is the task card's roster of c when it runs subagents in
// process ([GeneralPurpose] first), else the workspace's profiles and
// those given in Options.Agents.
func (c *Conductor) Roster() []agents.Profile {
	if c.subagents != nil {
		return append([]agents.Profile(nil), c.subagents.roster...)
	}
	return newSubagents(c, c.sess.Dir(), c.opts.Agents).roster
}
