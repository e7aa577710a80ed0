// Package agents is the subagents of a workspace: the profiles of
// .indus/agents ([Discover]), the [Roster] they make for the task
// card, and a [Crew] that runs a board of tasks with them, each teammate
// in a git worktree of its own ([CardRunner] runs a task through the task
// card's command runner).
package agents
