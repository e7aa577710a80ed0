// Package cli is the indusr command line: a declarative flag table, the
// subcommands (tools, call, version) and the boot wiring that turns flags
// into a provisioned deck. cmd/indusr and cmd/indusagir are thin mains over
// [Main], which keeps the whole CLI testable in-process.
package cli
