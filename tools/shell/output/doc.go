// Package output keeps a command's output within bounds: Clip is what the
// model is shown of a long output (its head and tail around a marker, the
// whole of it spilled to a log file), and CappedFile is a file of output
// that keeps its first and newest bytes and says what it cut.
package output
