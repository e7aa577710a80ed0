// Package manifest is the language of an addon's manifest.toml: data, not
// code. [Parse] reads and checks one ([Descriptor]: commands, gates,
// interceptors that fix arguments or redact results, [[hook]] tables, a
// [process] table and a [sandbox] grant), every problem a load fault
// naming the file, the line and the field. [Loader] is the Tier-0 loader
// of an addons host: it turns a manifest into an addon whose commands run
// through the host's exec handle and whose gates are rules; a manifest
// with a [process] table is a program, run by the Tier-1 loader of
// package addons/rpc, which hands the other manifests to this one. A
// manifest's hooks are checked here ([HookDecl]) and run by package
// addons/hooks, which the session plugs in as the loader's [HookBinder].
// [Hooks], [Processes] and [Grants] read what the manifests of a
// discovery declare without loading anything, so a host can ask the user
// before repository code runs.
package manifest
