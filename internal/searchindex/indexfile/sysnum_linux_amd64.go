package indexfile

import "golang.org/x/sys/unix"

// sysFstatat is the system call behind unix.Fstatat here.
const sysFstatat = unix.SYS_NEWFSTATAT
