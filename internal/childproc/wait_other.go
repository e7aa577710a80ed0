//go:build !linux

package childproc

import "os/exec"

// AwaitExit reaps the command's process. Without waitid(WNOWAIT) the leader
// cannot be kept as a zombie, so the group is signalled after its leader's
// PID was released; POSIX keeps a group id reserved while the group has
// members, which leaves only a narrow window for a signal to miss.
func AwaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	return true, cmd.Wait()
}
