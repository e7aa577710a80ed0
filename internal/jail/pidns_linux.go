//go:build linux

package jail

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The PID namespace of a confined command. A command could leave its
// process group, start a session of its own and fork for ever, outliving
// the session that started it (and the sweep of the paths it planted).
// Where user namespaces are allowed (see MountTier) the command therefore
// runs in a PID namespace of its own, whatever its policy, whose first process is a second helper (the init, see runInit):
// when the command exits, or the init is killed (it dies with the outer
// helper, which dies with indusr), the kernel kills every process left in
// the namespace at once. The outer helper stays in indusr's namespace,
// waits for the init, and ends as the command ended: the same exit code,
// or killed by the same signal.

// startInit is the outer helper's side, after any binds: it unshares a
// PID namespace for its next child, starts this program again as that
// namespace's init with s marked so, and ends as the command does. It
// returns only when no namespace can be made (the command then runs
// without one, as before).
func startInit(s spec, env []string, fail func(error)) {
	if err := unix.Unshare(unix.CLONE_NEWPID); err != nil {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		fail(fmt.Errorf("finding the helper: %w", err))
	}
	r, w, err := os.Pipe()
	if err != nil {
		fail(err)
	}
	inner := s
	inner.Init = true
	b, err := json.Marshal(inner)
	if err != nil {
		fail(err)
	}
	files := []uintptr{0, 1, 2}
	for i := range max(s.Pass, 0) {
		files = append(files, uintptr(3+i))
	}
	files = append(files, w.Fd()) // the status pipe: 3+Pass in the init
	ignoreSignals()
	pid, err := syscall.ForkExec(exe, os.Args, &syscall.ProcAttr{
		Env:   append(env, EnvVar+"="+string(b)),
		Files: files,
		// Forked from this locked thread, which waits below until the
		// init is gone: the signal fires only if this helper dies.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	w.Close()
	if err != nil {
		fail(fmt.Errorf("starting the PID namespace's init: %w", err))
	}
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	var buf [4]byte
	if n, _ := io.ReadFull(r, buf[:]); n == len(buf) {
		ws = syscall.WaitStatus(binary.LittleEndian.Uint32(buf[:]))
	}
	endAs(ws)
}

// runInit is the init's side: the first process of the new PID
// namespace. It mounts a /proc of the namespace (so ps and kill inside see
// its own processes; skipped where the kernel refuses), confines its
// thread, forks the command from it, reaps every process the namespace
// orphans until the command is reaped, and hands the command's wait
// status to the outer helper through the status pipe. Its exit ends the
// namespace: the kernel kills what is left in it.
func runInit(s spec, env []string, fail func(error)) {
	status := os.NewFile(uintptr(3+max(s.Pass, 0)), "status")
	ignoreSignals()
	_ = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	if err := confine(s.Policy, s.Nested, s.Mount, true); err != nil {
		fail(err)
	}
	files := []uintptr{0, 1, 2}
	for i := range max(s.Pass, 0) {
		files = append(files, uintptr(3+i))
	}
	pid, err := syscall.ForkExec(s.Path, os.Args, &syscall.ProcAttr{Env: env, Files: files})
	if err != nil {
		fail(fmt.Errorf("starting %s: %w", s.Path, err))
	}
	var ws syscall.WaitStatus
	for {
		var w syscall.WaitStatus
		got, err := syscall.Wait4(-1, &w, 0, nil)
		if got == pid {
			ws = w
			break
		}
		if err != nil && err != syscall.EINTR {
			break // ECHILD: cannot happen while the command lives
		}
	}
	var buf [4]byte
	binary.LittleEndian.PutUint32(buf[:], uint32(ws))
	_, _ = status.Write(buf[:])
	os.Exit(0)
}

// ignoreSignals has this process catch and drop every signal: the
// command's process group (which the helpers share) gets the same ones
// and acts on them; the helpers end when it does. Caught, not ignored, so
// the children start with the default handling.
func ignoreSignals() {
	signal.Notify(make(chan os.Signal, 1))
}

// endAs ends this process as ws says the command ended: the same exit
// code, or the same signal where the Go runtime lets it end by one (the
// others, which it would report as a crash, become 128 plus the signal,
// as a shell reports them).
func endAs(ws syscall.WaitStatus) {
	if ws.Exited() {
		os.Exit(ws.ExitStatus())
	}
	if !ws.Signaled() {
		os.Exit(126)
	}
	sig := ws.Signal()
	switch sig {
	case syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL, syscall.SIGALRM, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGPIPE:
		signal.Reset(sig)
		if sig == syscall.SIGPIPE {
			// The runtime drops SIGPIPE on other descriptors than 1
			// and 2: its default handling needs the kernel's.
			signal.Ignore(sig)
			signal.Reset(sig)
		}
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second) // the signal ends this process meanwhile
	}
	os.Exit(128 + int(sig))
}
