//go:build unix

package skills

import "syscall"

// openDirectory makes an open fail on anything but a folder, so a pipe
// planted where a skills folder should be is never waited on.
const openDirectory = syscall.O_DIRECTORY
