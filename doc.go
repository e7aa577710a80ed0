// Package induscode is a capability deck: the typed tool layer between a
// coding agent and the tools it calls.
//
// The packages, bottom to top (an arrow in ARCHITECTURE.md's picture means
// "imports"; nothing imports upward):
//
//   - tool: the callable currency (Tool, Spec, Result, Env, ReadState) and
//     the typed constructor that infers a tool's schema from a Go struct.
//   - internal/atomicfile, internal/linediff, internal/flock,
//     internal/childproc: leaf helpers shared by the layers above (atomic
//     file replacement, plain or through an os.Root, and the sweep of
//     temp files a killed writer left; line diffs rendered as unified
//     diffs; advisory locks, for the ledger, the checkpoint store and the
//     per-file locks of write, edit and rewind; children that die with the
//     session, also when indusr is killed).
//   - workspace: every path under <workspace>/.indusvx/, created on demand
//     with a .gitignore so the state folder ignores itself.
//   - approval: the user's store of approvals of workspace code and what
//     an approval covers (declarations, the workspace files they run).
//   - tools/files (read, write, edit, ls), tools/search (grep, find),
//     tools/shell (bash, process), tools/checklist (todo_read, todo_set),
//     tools/web (websearch, webfetch).
//   - deck/cards (the seven app cards: todo, bg-process, task, saas-action,
//     memory, enter_plan_mode, exit_plan_mode), deck/checkpoint (the write/edit
//     checkpoint wrapper, stores and rewind), deck (the catalog, profiles,
//     provisioning and the Box that runs calls by name).
//   - bridge/ledger (the event-sourced enrollment ledger) and bridge (MCP
//     config discovery, the fleet of mounted servers, grafted tools).
//   - addons, addons/manifest and addons/policy: addon discovery, the event
//     dispatcher and the interceptor chain folded around every tool; the
//     manifest.toml language and its Tier-0 loader; the addons' policy and
//     path hygiene. agents: subagent profiles and the crew. intent: typed
//     Go intents as tools.
//   - session: the one boot path (Open/Close) that the CLI, the MCP server
//     and Go programs share.
//   - serve: the deck as an MCP server over stdio or Streamable HTTP.
//   - provider (neutral model types, retries), provider/anthropic and
//     provider/openai (one adapter per model SDK), provider/connect (a
//     client from a provider/model id); conductor (the agent loop) and
//     conductor/toolrun (a model's tool uses run through a deck).
//   - cmd/internal/cli: the indusr command line; cmd/indusr and cmd/indusagir
//     are thin mains over it. cmd/internal/agent and cmd/indusr-agent: the
//     agent's program, which indusr execs for -p and which alone links the
//     model SDKs.
package induscode
