//go:build !linux

package shell

import "os/exec"

// awaitExit reaps the command's process. Without waitid(WNOWAIT) the leader
// cannot be kept as a zombie, so the group is signalled after its leader's
// PID was released; POSIX keeps a group id reserved while the group has
// members, which leaves only a narrow window for a signal to miss.
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	return true, cmd.Wait()
}
