// Package build writes grep's trigram index of a workspace: a walk with
// grep's own rules reads each file once (build.go), its workers sort the
// trigrams of their files in batches into runs of posting lists
// (batch.go), which are merged (merge.go), and memory stays bounded by
// spilling runs to disk (spill.go); the large buffers come from package
// arena. The build also stamps every folder the walk entered and every
// ignore file it read (tree.go), so that a search can take the file
// table for the walk. The file is written in package indexfile's format
// and replaces the old one atomically.
package build
