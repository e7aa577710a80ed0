package shell

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for each output pipe. The default 64 KiB
// makes a process that prints fast stop and wait for us every 64 KiB; 1 MiB
// (the unprivileged maximum, /proc/sys/fs/pipe-max-size) lets it run on
// and lets one read take up to a readChunk. The kernel allocates the pages
// only as they fill.
const pipeSize = 1 << 20

// growPipe enlarges the pipe whose write end is w, best effort. It uses w
// because Fd puts a file in blocking mode, which the read end, served by
// the runtime poller, must not be.
func growPipe(w *os.File) {
	_, _ = unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, pipeSize)
}
