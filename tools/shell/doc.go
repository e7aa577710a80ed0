// Package shell authors the shell tools: bash, which runs one command to
// completion, and process, which starts commands in the background and reads,
// waits for and stops them. One engine ([Engine]) serves both and the
// bg-process app card; each session (one [tool.Env], so one deck) has its own,
// and closing the session kills everything the engine started.
//
// Every command runs under bash -c (sh -c when bash is missing) in a process
// group of its own, with stdin from the null device and INDUSR=1 in its
// environment. Stopping a command signals the whole group: SIGTERM, then
// SIGKILL once [StopGrace] has passed, so the children and grandchildren a
// command forks do not outlive it. On Linux the group leader is left
// unreaped (waitid with WNOWAIT) until the group is done, so its PID, which
// is also the group id, cannot be reused while the group is signalled.
//
// Output never grows memory without bound. bash keeps only the head and the
// tail of what the model sees and spills the whole output to a log file once
// it passes [MaxModelChars]; a background process keeps the last
// [MaxBufferedLines] lines of each stream in a ring and writes everything to a
// capture file under <workspace>/.indusvx/bg/ (package workspace).
package shell
