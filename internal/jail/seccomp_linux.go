//go:build linux

package jail

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter every confined child gets, installed on the calling
// thread after Landlock:
//
//   - TIOCSTI and TIOCLINUX ioctls are refused (EPERM), so a command
//     cannot push keystrokes into a terminal (the user's, should it hold
//     one, which then runs them unconfined once indusr exits);
//   - with the network off, socket and socketpair of every family but
//     AF_UNIX are refused (EACCES): IPv4 and IPv6 (UDP too, which
//     Landlock of this generation does not cover), packet sockets (raw
//     frames, as root), netlink, vsock (a host-guest channel on virtual
//     machines), XDP and whatever else the kernel offers; and so are
//     io_uring rings, whose socket operations would pass by the filter;
//   - a system call of another architecture (a 32-bit program, the x32
//     ABI) is refused whole: its calls have other numbers.
//
// Where the architecture is not known here there is no filter: Landlock's
// TCP rules only.
func installFilter(network bool) error {
	if seccompArch == 0 {
		return nil
	}
	prog := filterProgram(network)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}

// The filter's verdicts and the offsets of struct seccomp_data.
const (
	retAllow   = unix.SECCOMP_RET_ALLOW
	retDenyNet = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	retDenyTTY = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)

	offNr, offArch, offArg0, offArg1 = 0, 4, 16, 24
)

// filterProgram assembles the filter. Jumps name labels; each argument is
// compared on its low 32 bits, which is all the kernel reads of an int
// (the domain) or an unsigned int (the ioctl request).
func filterProgram(network bool) []unix.SockFilter {
	var a asm
	a.load(offArch)
	a.ifEq(seccompArch, "", "deny-net")
	a.load(offNr)
	a.ifGE(0x40000000, "deny-net", "") // x32
	a.ifEq(nrIoctl, "ioctl", "")
	if !network {
		a.ifEq(nrIOUringSetup, "deny-net", "")
		a.ifEq(nrSocket, "family", "")
		a.ifEq(nrSocketpair, "family", "")
	}
	a.ret(retAllow)
	a.label("ioctl")
	a.load(offArg1)
	a.ifEq(unix.TIOCSTI, "deny-tty", "")
	a.ifEq(unix.TIOCLINUX, "deny-tty", "")
	a.ret(retAllow)
	if !network {
		a.label("family")
		a.load(offArg0)
		a.ifEq(unix.AF_UNIX, "allow", "deny-net")
	}
	a.label("allow")
	a.ret(retAllow)
	a.label("deny-net")
	a.ret(retDenyNet)
	a.label("deny-tty")
	a.ret(retDenyTTY)
	return a.resolve()
}

// asm builds a classic BPF program with forward jumps to labels ("" is
// the next instruction).
type asm struct {
	prog   []unix.SockFilter
	jumps  []jump
	labels map[string]int
}

type jump struct {
	at     int
	jt, jf string
}

func (a *asm) load(off uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (a *asm) ret(k uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k})
}

func (a *asm) ifEq(k uint32, jt, jf string) { a.cond(unix.BPF_JEQ, k, jt, jf) }
func (a *asm) ifGE(k uint32, jt, jf string) { a.cond(unix.BPF_JGE, k, jt, jf) }

func (a *asm) cond(op uint16, k uint32, jt, jf string) {
	a.jumps = append(a.jumps, jump{at: len(a.prog), jt: jt, jf: jf})
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = make(map[string]int)
	}
	a.labels[name] = len(a.prog)
}

// resolve fills in the jump offsets; a label behind a jump, or too far
// for one, is a bug of this file.
func (a *asm) resolve() []unix.SockFilter {
	off := func(from int, label string) uint8 {
		if label == "" {
			return 0
		}
		to, ok := a.labels[label]
		d := to - from - 1
		if !ok || d < 0 || d > 255 {
			panic("jail: bad seccomp jump to " + label)
		}
		return uint8(d)
	}
	for _, j := range a.jumps {
		a.prog[j.at].Jt = off(j.at, j.jt)
		a.prog[j.at].Jf = off(j.at, j.jf)
	}
	return a.prog
}
