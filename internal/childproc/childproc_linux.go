//go:build linux

package childproc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/indusagi/induscode/internal/jail"
)

// setDeathSignal asks the kernel to SIGKILL the child when the thread that
// started it ends: see start for why that thread outlives every child.
func setDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// The starter: one goroutine, locked to its OS thread, starts every child.
// A parent-death signal fires when the thread that forked the child ends,
// not the process, and Go ends threads whenever it likes; a locked thread
// ends only with its goroutine. The goroutine runs while any child it
// started lives (live > 0) and then returns, ending the thread, when no
// child is left for the signal to hit.
var starter struct {
	mu   sync.Mutex
	jobs chan func()
	live int
}

func start(cmd *exec.Cmd) (done func(), err error) {
	if apply, ok := jail.Unwrap(cmd); ok {
		return startConfined(cmd, apply)
	}
	starter.mu.Lock()
	if starter.jobs == nil {
		starter.jobs = make(chan func())
		go runStarter(starter.jobs)
	}
	starter.live++
	jobs := starter.jobs
	starter.mu.Unlock()

	errc := make(chan error, 1)
	jobs <- func() { errc <- cmd.Start() }
	if err := <-errc; err != nil {
		release()
		return nil, err
	}
	pid := cmd.Process.Pid
	noteStarted(pid)
	var once sync.Once
	return func() { once.Do(func() { noteReaped(pid); release() }) }, nil
}

func release() {
	starter.mu.Lock()
	defer starter.mu.Unlock()
	starter.live--
	if starter.live == 0 {
		close(starter.jobs)
		starter.jobs = nil
	}
}

func runStarter(jobs <-chan func()) {
	// Never unlocked: when this goroutine returns, its thread ends with it.
	runtime.LockOSThread()
	for job := range jobs {
		job()
	}
}

// startConfined starts a sandboxed cmd from an OS thread of its own that
// apply confined first: Landlock and seccomp bind the calling thread and
// what it forks, so the child starts confined without a helper process.
// The thread lives until the child is reaped, since the child's
// parent-death signal is tied to it, and then ends with its goroutine,
// which never unlocks it: no Go code runs on a confined thread again,
// and the runtime starts no thread from a locked one.
func startConfined(cmd *exec.Cmd, apply func() error) (done func(), err error) {
	pidfdChecked()
	errc := make(chan error, 1)
	reaped := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		if err := apply(); err != nil {
			errc <- fmt.Errorf("sandbox: %w; the command did not run", err)
			return
		}
		err := cmd.Start()
		errc <- err
		if err == nil {
			<-reaped
		}
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	noteStarted(pid)
	var once sync.Once
	return func() { once.Do(func() { noteReaped(pid); close(reaped) }) }, nil
}

// pidfdChecked makes package os run, unconfined, its one check of
// whether process file descriptors work, which it does on the first start
// or lookup of a process, by signalling this process: from a confined
// thread, which kernels before 6.15 do not let signal the rest of its own
// process, the check would fail and os would do without them for good.
var pidfdChecked = sync.OnceFunc(func() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
})

func pidAlive(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// startTime is field 22 of /proc/pid/stat: when the process started, in
// clock ticks since boot. With the pid it names one process for good.
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// needStart: here every record carries start times, so one without them
// is not a ward's.
const needStart = true

// killCarriers SIGKILLs every process of this user whose environment holds
// a record's token as the whole value of EnvVar and that started after the
// record's owner (a descendant cannot be older), and the recorded groups
// such a process belongs to (members that dropped the variable go too). A
// group is signalled only while its recorded leader is gone or is still
// the process recorded: a group id cannot be a new pid while the group
// lives. It returns how many processes it found.
func killCarriers(recs []record) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	byEntry := make(map[string]record, len(recs))
	for _, r := range recs {
		if validToken(r.Token) {
			byEntry[EnvVar+"="+r.Token] = r
		}
	}
	self, me := os.Getpid(), uint32(os.Geteuid())
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if fi, err := os.Stat("/proc/" + e.Name()); err != nil || fi.Sys().(*syscall.Stat_t).Uid != me {
			continue // gone, or another user's
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue // gone, or not ours to read
		}
		r, ok := carried(env, byEntry)
		if !ok || !startedAfter(startTime(pid), r.OwnerStart) {
			continue
		}
		n++
		pgid, gerr := syscall.Getpgid(pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if gerr != nil {
			continue
		}
		for _, g := range r.Groups {
			if g.Pid == pgid && (!pidAlive(g.Pid) || startTime(g.Pid) == g.Start) {
				_ = syscall.Kill(-g.Pid, syscall.SIGKILL)
			}
		}
	}
	return n
}

// carried returns the record whose token env (a /proc environ: entries
// ending in NUL) holds as an entry of its own, whole.
func carried(env []byte, byEntry map[string]record) (record, bool) {
	for len(env) > 0 {
		entry := env
		if i := bytes.IndexByte(env, 0); i >= 0 {
			entry, env = env[:i], env[i+1:]
		} else {
			env = nil
		}
		if bytes.HasPrefix(entry, []byte(EnvVar+"=")) {
			if r, ok := byEntry[string(entry)]; ok {
				return r, true
			}
		}
	}
	return record{}, false
}

// startedAfter compares two start times (clock ticks since boot); an
// unknown one never counts as after.
func startedAfter(t, owner string) bool {
	a, err1 := strconv.ParseUint(t, 10, 64)
	b, err2 := strconv.ParseUint(owner, 10, 64)
	return err1 == nil && err2 == nil && a >= b
}
