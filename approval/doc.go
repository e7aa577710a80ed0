// Package approval is the user's record of which workspace code may run,
// and the fingerprints it is judged by.
//
// A repository can declare code that runs as the user by itself: MCP
// servers in its configs, command hooks in Claude Code's settings or in
// an addon's manifest, addon processes. Each runs only once the user has
// approved it, and an approval covers the code, not only the
// declaration: a unit of workspace code is a list of [Item]s, its
// declaration as written and every file inside the workspace it runs
// (the files a command names, the whole folder of an addon process), each
// with a hash. The [Store] keeps, per workspace and group, the items the
// user approved; a unit may run when every one of its items is recorded
// with the same hash, and [Diff] says what changed since.
//
// Files are read beneath the workspace through an [os.Root], so a link
// that leaves the workspace is recorded as such and never followed.
package approval
