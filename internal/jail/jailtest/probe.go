//go:build linux

package jailtest

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ProbeEnv names the probe a test binary runs instead of its tests, when
// its TestMain calls [Main]: "socket:FAMILY:TYPE", "tiocsti" or
// "tioclinux".
const ProbeEnv = "JAILTEST_PROBE"

// probeBin is the test binary that can run probes ("" without [Main]).
var probeBin string

// Main runs the probe that ProbeEnv names and exits, or else records that
// this test binary can serve as the probe program of the socket and
// terminal attempts, and returns. Call it in TestMain after jail.Main.
func Main() {
	v, ok := os.LookupEnv(ProbeEnv)
	if !ok {
		if exe, err := os.Executable(); err == nil {
			probeBin = exe
		}
		return
	}
	fmt.Println(probe(v))
	os.Exit(0)
}

// The probe's answers: the call worked (an escape when the sandbox should
// refuse it), the sandbox refused it, or the system offers no such thing
// (the attempt proves nothing here and is not counted).
const (
	opened      = "OPENED"
	refused     = "REFUSED"
	unavailable = "UNAVAILABLE"
)

func probe(v string) string {
	kind, arg, _ := strings.Cut(v, ":")
	switch kind {
	case "socket":
		fam, typ, _ := strings.Cut(arg, ":")
		f, _ := strconv.Atoi(fam)
		ty, _ := strconv.Atoi(typ)
		fd, err := unix.Socket(f, ty, 0)
		if err == nil {
			unix.Close(fd)
			return opened
		}
		return verdict(err, unix.EACCES)
	case "tiocsti", "tioclinux":
		return terminalProbe(kind)
	}
	return "unknown probe " + v
}

// verdict names err: the sandbox's errno is a refusal, another one (no
// such family here, no privilege for it) leaves nothing to test.
func verdict(err error, sandbox unix.Errno) string {
	if err == sandbox {
		return refused + ": " + err.Error()
	}
	return unavailable + ": " + err.Error()
}

// terminalProbe makes a pseudo-terminal its controlling terminal (a new
// session first) and asks it to take input (TIOCSTI) or a console request
// (TIOCLINUX, which a pseudo-terminal answers with ENOTTY: the request
// reached the driver, which the filter must prevent).
func terminalProbe(kind string) string {
	signal.Ignore(unix.SIGHUP) // closing the terminal hangs its session up
	_, _ = unix.Setsid()
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return unavailable + ": /dev/ptmx: " + err.Error()
	}
	defer unix.Close(master)
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		return unavailable + ": unlockpt: " + err.Error()
	}
	n, err := unix.IoctlGetUint32(master, unix.TIOCGPTN)
	if err != nil {
		return unavailable + ": ptsname: " + err.Error()
	}
	slave, err := unix.Open("/dev/pts/"+strconv.Itoa(int(n)), unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return unavailable + ": the terminal: " + err.Error()
	}
	defer unix.Close(slave)
	if kind == "tioclinux" {
		sub := byte(6) // TIOCL_GETSHIFTSTATE
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(slave), unix.TIOCLINUX, uintptr(unsafe.Pointer(&sub)))
		if errno == unix.EPERM {
			return refused + ": " + errno.Error()
		}
		return opened + " (the request reached the terminal: " + errno.Error() + ")"
	}
	c := byte('x')
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(slave), unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	if errno == 0 {
		return opened
	}
	return verdict(errno, unix.EPERM)
}

// families are the socket families tried with the network off: every one
// but AF_UNIX must be refused.
var families = []struct {
	name   string
	family int
	sotype int
}{
	{"inet", unix.AF_INET, unix.SOCK_DGRAM},
	{"inet6", unix.AF_INET6, unix.SOCK_DGRAM},
	{"inet raw", unix.AF_INET, unix.SOCK_RAW},
	{"packet", unix.AF_PACKET, unix.SOCK_RAW},
	{"netlink", unix.AF_NETLINK, unix.SOCK_RAW},
	{"vsock", unix.AF_VSOCK, unix.SOCK_STREAM},
	{"xdp", unix.AF_XDP, unix.SOCK_RAW},
	{"bluetooth", unix.AF_BLUETOOTH, unix.SOCK_STREAM},
	{"can", unix.AF_CAN, unix.SOCK_RAW},
	{"tipc", unix.AF_TIPC, unix.SOCK_RDM},
	{"alg", unix.AF_ALG, unix.SOCK_SEQPACKET},
}

// probeAttempts are the attempts that run the probe program: one per
// socket family and the two terminal requests. None without [Main].
func (s *Scene) probeAttempts() []Attempt {
	if probeBin == "" {
		return nil
	}
	run := func(probe string) string { return fmt.Sprintf("%s=%s %s", ProbeEnv, probe, shellQuote(probeBin)) }
	says := func(o string) bool { return strings.Contains(o, opened) }
	var a []Attempt
	for _, f := range families {
		a = append(a, Attempt{Name: "socket " + f.name, Family: "socket", Command: run(fmt.Sprintf("socket:%d:%d", f.family, f.sotype)), Escaped: says})
	}
	a = append(a,
		Attempt{Name: "TIOCSTI into a terminal", Family: "terminal", Command: run("tiocsti"), Escaped: says},
		Attempt{Name: "TIOCLINUX to a terminal", Family: "terminal", Command: run("tioclinux"), Escaped: says},
	)
	return a
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
