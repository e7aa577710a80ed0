package cli

import (
	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/session"
)

// newCrewCmd is `indusr crew run PLAN.toml`: a crew of subagents works
// through a plan's tasks, each teammate in a git worktree of its own, on
// the agent's engine (so in indusr-agent, as -p).
func newCrewCmd(prog Program, opts *options, all []string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "crew",
		Short: "Run a crew of subagents through a plan of tasks, each teammate in its own git worktree",
	}
	var f PrintFlags
	var asJSON bool
	run := &cobra.Command{
		Use:   "run PLAN.toml",
		Short: "Run the plan's tasks with the teammates it names, and report the branches they left",
		Long: "The plan names its teammates (profiles of .indus/agents or .claude/agents; default: those the tasks are assigned to) " +
			"and its tasks as [[task]] tables (id, prompt, deps, assign). Each teammate works in a git worktree of its own " +
			"under .indusvx/crews/, as a subagent with its profile's prompt, model and tools; each completed task that " +
			"changed files is a commit on the teammate's branch (crew/ID/NAME), for you to inspect and merge. Rounds run " +
			"until no task is ready (at most max_rounds, default 64); a task whose dependency failed is blocked. " +
			"Exit 1 when a task failed or was blocked.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if prog.Crew == nil {
				return execAgent(all)
			}
			f.Format = "text"
			if asJSON {
				f.Format = "json"
			}
			stderr := c.ErrOrStderr()
			return prog.Crew(c.Context(), AgentRun{
				Args: args, Flags: f,
				Stdin: c.InOrStdin(), Stdout: c.OutOrStdout(), Stderr: stderr,
				WorkDir: func() (string, error) { return workDir(opts) },
				Session: func() session.Options { return sessionOptions(opts, stderr) },
			})
		},
	}
	run.Flags().StringVar(&f.Model, "model", "", "the model of teammates whose profile names none, as provider/model (default: settings, else $INDUSR_MODEL)")
	run.Flags().StringVar(&f.Mode, "permission-mode", "", "default, acceptEdits, plan or bypassPermissions (a profile may narrow it); default: settings, else acceptEdits within the worktrees")
	run.Flags().StringSliceVar(&f.Allowed, "allowed-tools", nil, `calls that run without asking, in Claude Code's syntax: "Bash(go test:*)"`)
	run.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.AddCommand(run)
	return cmd
}
