// Package checkpoint lets a session's file changes be rewound. Before a
// call of a tool that says which files it changes (a [tool.FileChanger]:
// write and edit, and any grafted or addon tool that implements it) runs,
// the [Wrap] wrapper files those files' current content in a [Store] under
// the active node (one step of the conversation); a [Plan] later puts the
// files back as they were before that node.
//
// A store keeps the first record of each (node, path) pair, so a node that
// changes a file twice still remembers the content from before its first
// change, and a file that did not exist is recorded as such, so a rewind
// deletes it. [NewMemStore] keeps records in memory for library hosts;
// [NewDiskStore] keeps them under <workspace>/.indusvx/checkpoints/ as
// content-addressed blobs plus an index written atomically, so that one
// process (indusr call) can record and another (indusr rewind) restore.
//
// The node of a call comes from its context ([WithNode]); without one every
// call is a node of its own, which is what the CLI and the server want.
package checkpoint
