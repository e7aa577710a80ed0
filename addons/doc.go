// Package addons lets a workspace extend the deck without changing it.
// Addons found under <workspace>/.indus/addons are loaded, each records
// what it contributes (event handlers, tool interceptors, commands, tools)
// on its own [API] surface, and the [Host] folds every contribution into
// one [Bundle]: a [Dispatcher] for the colon-named events, a [Chain] of
// interceptors around each tool call, the commands and the extra tools.
//
// Nothing an addon does can stop the others: every failure becomes a typed
// [Fault] handed to the host's listeners, and the addon that caused it is
// skipped or its handler ignored. The Tier-0 [ManifestLoader] reads a
// declarative manifest.toml (data, not code: commands, gates, and
// interceptors that fix arguments or redact results, see [Descriptor]); a
// manifest with a [process] table is a program, run by the Tier-1 loader
// of package addons/rpc, which hands the other manifests to this one. Bare
// module files and package folders are recognised and refused with a
// fault saying to wrap them in a [process] manifest. Go programs may hand the host
// in-process addons with [Host.LoadAddon]. A manifest's [[hook]] tables
// (command hooks, [HookDecl]) are parsed and checked here and run by
// package addons/hooks, which the session plugs in as the loader's
// [HookBinder].
//
// Beside the addons, .indus/agents holds subagent profiles
// ([DiscoverProfiles]); a [Crew] runs a board of tasks with them, each
// teammate in a git worktree of its own.
package addons
