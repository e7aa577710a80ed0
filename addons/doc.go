// Package addons lets a workspace extend the deck without changing it.
// Addons found under <workspace>/.indus/addons are loaded, each records
// what it contributes (event handlers, tool interceptors, commands, tools)
// on its own [API] surface, and the [Host] folds every contribution into
// one [Bundle]: a [Dispatcher] for the colon-named events, a [Chain] of
// interceptors around each tool call, the commands and the extra tools.
//
// Nothing an addon does can stop the others: every failure becomes a typed
// [Fault] handed to the host's listeners, and the addon that caused it is
// skipped or its handler ignored. This package is the contract and the
// host; a [Loader] turns an addon's folder into an [Addon]: package
// addons/manifest reads the declarative manifest.toml (Tier 0), package
// addons/rpc runs a manifest's [process] program (Tier 1), and package
// addons/hooks runs a manifest's command hooks. Bare module files and
// package folders are recognised ([IsModule]) and refused with a fault
// saying to wrap them in a [process] manifest. Go programs may hand the
// host in-process addons with [Host.LoadAddon].
package addons
