package cards

import (
	"context"
	"fmt"
	"strings"

	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell"
)

// Agent is one entry of a delegate runner's roster.
type Agent struct {
	Name        string
	Description string
}

// Delegation is one request to a sub-agent.
type Delegation struct {
	Objective string // what the sub-agent must achieve
	Agent     string // roster name; "" means the runner's first agent
	Context   string // what the sub-agent needs to know, optional
}

// DelegateRunner runs delegations for the task card. Run blocks until the
// sub-agent finishes or ctx ends, and returns what the sub-agent reported;
// progress goes to [tool.ReportProgress] on ctx. A runner whose Run
// returns only once its sub-agent has stopped, and at once when ctx ends,
// may say so with a method Cancellable() bool that returns true: the
// card is then a [tool.Cancellable], and a cancelled call returns when
// the sub-agent has stopped rather than leaving it to stop behind it.
type DelegateRunner interface {
	Agents() []Agent
	Run(ctx context.Context, d Delegation) (string, error)
}

// cancellableTask is the task card over a runner that stops with its
// context.
type cancellableTask struct{ tool.Tool }

func (cancellableTask) Cancellable() bool { return true }

type taskInput struct {
	Objective string `json:"objective" jsonschema:"What the sub-agent must achieve, stated so that someone without your context can do it."`
	Agent     string `json:"agent,omitempty" jsonschema:"Which agent of the roster to use; the first one when omitted."`
	Context   string `json:"context,omitempty" jsonschema:"Facts, file paths and constraints the sub-agent needs."`
}

// Task returns the task card over runner. A nil runner gives a card that
// answers every call with a "not configured" result.
func Task(runner DelegateRunner) tool.Tool {
	desc := "Delegate a self-contained piece of work to a sub-agent and get its report back. Give a complete objective: " +
		"the sub-agent does not see this conversation. Use it for work that can run on its own (a focused " +
		"investigation, a mechanical change across many files), not for a single quick step."
	var roster []Agent
	if runner != nil {
		roster = runner.Agents()
		if len(roster) > 0 {
			var names []string
			for _, a := range roster {
				names = append(names, fmt.Sprintf("%s (%s)", a.Name, a.Description))
			}
			desc += " Agents: " + strings.Join(names, "; ") + "."
		}
	} else {
		desc += " No delegate runner is configured in this session, so calls fail until the host wires one."
	}
	card := tool.Must(tool.New(tool.Spec{Name: "task", Label: "Delegate task", Description: desc},
		func(ctx context.Context, in taskInput, env *tool.Env) tool.Result {
			if runner == nil {
				return notConfigured("task", "delegate runner",
					"A host sets deck.Framework.Delegate, for example to a cards.CommandRunner that launches an agent CLI such as `claude -p {objective}`.")
			}
			if strings.TrimSpace(in.Objective) == "" {
				return tool.Errorf("task: objective is empty; say what the sub-agent must achieve")
			}
			if in.Agent != "" && !hasAgent(roster, in.Agent) {
				return tool.Errorf("task: no agent named %q; choose one of: %s", in.Agent, agentNames(roster))
			}
			if env != nil {
				if p := shell.EngineOf(env).Sandbox(); p != nil {
					// A delegated agent talks to its model: it keeps the
					// network, and the rest of the session's mode.
					d := *p
					d.Network = true
					ctx = jail.NewContext(ctx, &d)
				}
			}
			out, err := runner.Run(ctx, Delegation{Objective: in.Objective, Agent: in.Agent, Context: in.Context})
			if err != nil {
				if out != "" {
					return tool.Errorf("task failed: %v\n\nOutput so far:\n%s", err, out)
				}
				return tool.Errorf("task failed: %v", err)
			}
			if strings.TrimSpace(out) == "" {
				out = "(the sub-agent finished without output)"
			}
			return tool.Text(out)
		}))
	if c, ok := runner.(interface{ Cancellable() bool }); ok && c.Cancellable() {
		return cancellableTask{card}
	}
	return card
}

func hasAgent(roster []Agent, name string) bool {
	for _, a := range roster {
		if a.Name == name {
			return true
		}
	}
	return false
}

func agentNames(roster []Agent) string {
	if len(roster) == 0 {
		return "(the runner lists no agents)"
	}
	names := make([]string, len(roster))
	for i, a := range roster {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}
