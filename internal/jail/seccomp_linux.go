//go:build linux

package jail

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// denyIPSockets installs a seccomp filter on the calling thread that
// refuses to make IPv4 and IPv6 sockets (so UDP too, which Landlock of
// this generation does not cover) and io_uring rings (whose socket
// operations would pass by the filter), with EACCES. A system call of
// another architecture (a 32-bit program, the x32 ABI) is refused
// whole: its socket calls have other numbers. Where the architecture is
// not known here, only Landlock's TCP rules apply.
func denyIPSockets() error {
	if seccompArch == 0 {
		return nil
	}
	const (
		ldW   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
		deny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		// offsets in struct seccomp_data
		offNr, offArch, offArg0 = 0, 4, 16
	)
	prog := []unix.SockFilter{
		{Code: ldW, K: offArch},                      // 0
		{Code: jeq, K: seccompArch, Jt: 0, Jf: 8},    // 1: foreign -> 10
		{Code: ldW, K: offNr},                        // 2
		{Code: jge, K: 0x40000000, Jt: 6, Jf: 0},     // 3: x32 -> 10
		{Code: jeq, K: nrIOUringSetup, Jt: 5, Jf: 0}, // 4: -> 10
		{Code: jeq, K: nrSocket, Jt: 0, Jf: 3},       // 5: not socket -> 9
		{Code: ldW, K: offArg0},                      // 6: the domain
		{Code: jeq, K: unix.AF_INET, Jt: 2, Jf: 0},   // 7: -> 10
		{Code: jeq, K: unix.AF_INET6, Jt: 1, Jf: 0},  // 8: -> 10
		{Code: ret, K: allow},                        // 9
		{Code: ret, K: deny},                         // 10
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}
