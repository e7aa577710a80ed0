// Package shell authors the shell tools: bash, which runs one command to
// completion, and process, which starts commands in the background, types
// into them, and reads, waits for and stops them. One engine ([Engine])
// serves both and the bg-process app card; each session (one [tool.Env],
// so one deck) has its own, and closing the session kills everything the
// engine started.
//
// Every command runs under bash -c (sh -c when bash is missing) in a process
// group of its own with INDUSR=1 in its environment. bash's commands read
// the null device; a background process reads a pipe the input action
// writes to, or runs in a pseudo-terminal (github.com/creack/pty) as the
// leader of its own session, and package termtext turns its output into
// the text the terminal shows. A wait ends on the first of: a pattern
// matching output that is new since a mark, a quiet period, the process's
// end, a timeout; it wakes on each write, never on a polling tick.
//
// Stopping a command signals the whole group: SIGTERM, then SIGKILL once
// [StopGrace] has passed, so the children and grandchildren a command
// forks do not outlive it. On Linux the group leader is left unreaped
// (waitid with WNOWAIT) until the group is done, so its PID, which is also
// the group id, cannot be reused while the group is signalled.
//
// Output never grows memory without bound. bash keeps only the head and the
// tail of what the model sees and spills the whole output to a log file once
// it passes [MaxModelChars]; a background process keeps the last
// [MaxBufferedLines] lines of each stream in a ring (a terminal as many
// lines of history) and writes everything to a capture file under
// <workspace>/.indusvx/bg/ (package workspace). One input call sends at
// most [MaxInputBytes] and waits at most [InputTimeout] for the process to
// take them.
package shell

import "github.com/indusagi/induscode/tools/shell/output"

// MaxModelChars is the most command output the model is shown in one
// result (see output.Clip).
const MaxModelChars = output.MaxModelChars

// MaxSpillBytes bounds each file the engine writes output to (see
// output.CappedFile).
const MaxSpillBytes = output.MaxSpillBytes
