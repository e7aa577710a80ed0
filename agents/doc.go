// Package agents is the subagents of a workspace: the profiles of
// .indus/agents (TOML) and of .claude/agents (Claude Code's Markdown
// files, read unchanged), found by [Discover]; the [Roster] they make for
// the task card's command runner; and a [Crew] that runs a board of tasks
// with them, each teammate in a git worktree of its own ([CardRunner]
// runs a task through the task card's command runner, and a host may
// plug in its own [TeammateRunner], such as the conductor's in-process
// one). A host that is given profiles in code (the Agent SDK's agents
// option) makes the same [Profile] values and checks them with
// [Profile.Check].
package agents
