package conductor

import (
	"context"
	"encoding/json"
	"fmt"
)

// This file holds the controls a terminal UI offers while a conversation
// is open: the permission mode switched (Shift-Tab), a rule the user
// allowed "always" at a question, and the user's approval of a plan.
// They change state that Run's goroutine reads at each call, so all of it
// is read and written under c.mu.

// permState is the permissions and plan mode a call is decided by.
func (c *Conductor) permState() (permissions, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.perm, c.planning
}

func (c *Conductor) setPlanning(on bool) {
	c.mu.Lock()
	c.planning = on
	c.mu.Unlock()
}

// SetMode switches the permission mode of the calls that follow (the
// running prompt's too). Plan starts plan mode; leaving Plan ends it,
// as the user leaving plan mode in Claude Code does.
func (c *Conductor) SetMode(m PermissionMode) error {
	if _, err := ParsePermissionMode(string(m)); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.perm.mode == m {
		return nil
	}
	c.perm.mode = m
	c.planning = m == Plan
	return nil
}

// Planning reports whether plan mode holds the agent to read-only tools.
func (c *Conductor) Planning() bool {
	_, p := c.permState()
	return p
}

// AllowRule adds an allow rule in --allowed-tools syntax for the rest of
// the session (a question answered "always"); the calls it covers then
// run without asking.
func (c *Conductor) AllowRule(rule string) error {
	rs, err := ParseRules([]string{rule})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// A new slice: permState's copies keep the old one.
	c.perm.allow = append(append([]Rule(nil), c.perm.allow...), rs...)
	return nil
}

// AllowedRules are the allow rules in force, as written.
func (c *Conductor) AllowedRules() []string {
	perm, _ := c.permState()
	out := make([]string, len(perm.allow))
	for i, r := range perm.allow {
		out[i] = r.String()
	}
	return out
}

// PlanQuestion is the Question's Tool when the user is asked to approve
// a plan; its Input is exit_plan_mode's ({"plan": "..."}).
const PlanQuestion = "exit_plan_mode"

// approvePlan decides the plan of a successful exit_plan_mode (saved at
// path) and returns what the model is told. acceptEdits and
// bypassPermissions approve it; otherwise the user, when one can be
// asked, approves or refuses it (a refusal's reason is told to the
// model, and plan mode goes on); with no one to ask it stays unapproved.
func (c *Conductor) approvePlan(ctx context.Context, input json.RawMessage, path string) string {
	approved := fmt.Sprintf("The plan is approved (saved to %s). Carry it out now.", path)
	perm, _ := c.permState()
	if perm.mode == AcceptEdits || perm.mode == BypassPermissions {
		c.setPlanning(false)
		return approved
	}
	if c.opts.Ask == nil {
		return "The plan was saved to " + path + " but not approved: in permission mode " + string(perm.mode) +
			" nothing may change in this run. Stop here and give the plan as your answer."
	}
	c.askMu.Lock()
	a := c.opts.Ask(ctx, Question{Tool: PlanQuestion, Input: input, Why: "The plan needs the user's approval before anything changes."})
	c.askMu.Unlock()
	if !a.Allow {
		why := "The user did not approve the plan (saved to " + path + ")"
		if a.Reason != "" {
			why += ": " + a.Reason
		}
		return why + ". Stay in plan mode: revise the plan with read-only tools and present it again with exit_plan_mode."
	}
	c.mu.Lock()
	c.planning = false
	if c.perm.mode == Plan {
		c.perm.mode = Default
	}
	c.mu.Unlock()
	return approved
}

// ContextWindow is the window of the model of the next call, in tokens,
// as compaction counts it (0 when unknown).
func (c *Conductor) ContextWindow() int64 { return c.window() }
