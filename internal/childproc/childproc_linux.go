//go:build linux

package childproc

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
	var once sync.Once
	return func() { once.Do(release) }, nil
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

// killCarriers SIGKILLs every process whose environment carries one of the
// tokens, and the recorded groups such a process belongs to (members that
// dropped the variable go too). It returns how many processes it found.
func killCarriers(tokens map[string][]int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone, or not ours to read
		}
		for token, groups := range tokens {
			if !bytes.Contains(env, []byte(EnvVar+"="+token)) {
				continue
			}
			n++
			_ = syscall.Kill(pid, syscall.SIGKILL)
			if pgid, err := syscall.Getpgid(pid); err == nil {
				for _, g := range groups {
					if g == pgid {
						_ = syscall.Kill(-g, syscall.SIGKILL)
					}
				}
			}
		}
	}
	return n
}
