//go:build linux && arm64

package jail

import "golang.org/x/sys/unix"

const (
	seccompArch    = unix.AUDIT_ARCH_AARCH64
	nrSocket       = unix.SYS_SOCKET
	nrIOUringSetup = unix.SYS_IO_URING_SETUP
	nrSocketpair   = unix.SYS_SOCKETPAIR
	nrIoctl        = unix.SYS_IOCTL
)
