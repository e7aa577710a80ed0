package bridge

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/workspace"
)

// Teardown of a stdio server follows the MCP specification's order: close its stdin,
// wait, SIGTERM, wait, SIGKILL. The waits are short because a session is
// waiting on them; a server that needs longer to flush is rare and loses
// nothing the bridge needs.
const (
	// stdinGrace is how long a server has to exit after its stdin closes.
	stdinGrace = 500 * time.Millisecond
	// termGrace is how long a server has to exit after SIGTERM.
	termGrace = time.Second
	// drainGrace is how long the output pipes may stay open after the
	// server's process group is gone, held by a descendant that left the
	// group; then the bridge closes them itself.
	drainGrace = 500 * time.Millisecond
)

// process is a running stdio server: the direct child leads its own process
// group, so teardown reaches what it spawned (npx starts node, uvx starts
// python). Its stdout goes through a lineFilter and its stderr to the
// server's log.
type process struct {
	cmd    *exec.Cmd
	ward   *childproc.Ward // the server dies with indusr, also under SIGKILL
	unward func()
	stdin  *os.File
	stdout *lineFilter
	log    *childlog.Log

	exited  chan struct{} // closed when the child has been reaped
	exitErr error         // its exit status, valid after exited
	done    chan struct{} // closed when the child is reaped and its pipes are drained
	stop1   sync.Once

	// sigMu orders signals to the group against reaping its leader: once
	// the leader is reaped its pid (the group id) may be handed to a
	// stranger's process, so no group signal may be sent after that.
	sigMu  sync.Mutex
	reaped bool
}

// signalGroup signals the server's process group unless its leader has
// been reaped.
func (p *process) signalGroup(hard bool) {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	if !p.reaped {
		killGroup(p.cmd, hard)
	}
}

// startProcess starts cfg's command in dir.
func startProcess(cfg ServerConfig, dir string, log *childlog.Log) (*process, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = dir
	if cfg.Dir != "" {
		cmd.Dir = cfg.Dir
	}
	// A missing working directory makes exec report the command as not
	// found; say what is really missing.
	if err := checkDir(cmd.Dir, cfg); err != nil {
		return nil, err
	}
	if len(cfg.Env) > 0 {
		env := os.Environ()
		for _, p := range cfg.Env {
			env = append(env, p.Name+"="+p.Value)
		}
		cmd.Env = env // later entries win, so the config overrides
	}
	ownProcessGroup(cmd)
	ward := childproc.NewWard(workspace.At(dir).Procs())
	ward.Prepare(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	// *os.File ends give the child the descriptors directly: no copying
	// goroutines, and Wait returns when the child exits even if a
	// grandchild still holds the pipes.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	unward, err := ward.Start(cmd, true)
	if err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("starting %s: the command %s was not found (%v); install it or correct \"command\" in %s", commandLine(cfg), cfg.Command, err, where(cfg))
		}
		return nil, fmt.Errorf("starting %s: %w", commandLine(cfg), err)
	}
	closeAll(inR, outW, errW) // the child's ends
	p := &process{
		cmd: cmd, ward: ward, unward: unward, stdin: inW, stdout: newLineFilter(outR, log), log: log,
		exited: make(chan struct{}), done: make(chan struct{}),
	}
	log.Printf("started %s (pid %d)", commandLine(cfg), cmd.Process.Pid)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		log.Drain("stderr", errR)
	}()
	go p.reap(outR, errR, stderrDone)
	return p, nil
}

// checkDir reports a working directory that cannot be used, naming where
// it came from.
func checkDir(dir string, cfg ServerConfig) error {
	if dir == "" {
		return nil
	}
	what := fmt.Sprintf("the session directory %s, where stdio servers start,", dir)
	if cfg.Dir != "" {
		what = fmt.Sprintf("its working directory %s (\"cwd\" in %s)", dir, where(cfg))
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist; create it or correct the path (the command %s was not run)", what, cfg.Command)
	case err != nil:
		return fmt.Errorf("%s cannot be used: %v", what, err)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory; correct the path", what)
	}
	return nil
}

// where names the config row of a server, for messages.
func where(cfg ServerConfig) string {
	switch {
	case cfg.Source != "" && cfg.Row != "":
		return cfg.Source + " " + cfg.Row
	case cfg.Source != "":
		return cfg.Source
	}
	return "its config"
}

// reap waits for the child, then clears out its process group and drains
// the pipes, closing them itself if a stray descendant keeps them open.
func (p *process) reap(outR, errR *os.File, stderrDone chan struct{}) {
	// Wait for the exit but keep the leader a zombie while the rest of its
	// group is killed: the zombie holds the group id, so the signal cannot
	// reach a process that reused the pid. Then reap it.
	reaped, err := childproc.AwaitExit(p.cmd)
	if !reaped {
		p.signalGroup(true)
	}
	p.sigMu.Lock()
	if reaped {
		// Where a zombie cannot be kept, the group id stays reserved while
		// the group has members, which leaves a narrow window only.
		killGroup(p.cmd, true)
	} else {
		err = p.cmd.Wait()
	}
	p.exitErr, p.reaped = err, true
	p.sigMu.Unlock()
	p.unward()
	close(p.exited)
	p.log.Printf("exited: %v", exitText(p.exitErr))
	p.ward.Close() // what left the group (setsid)
	select {
	case <-stderrDone:
	case <-time.After(drainGrace):
		errR.Close()
		<-stderrDone
	}
	errR.Close()
	// stdout is read by the SDK through the filter; closing it ends a read
	// still waiting on a descendant.
	select {
	case <-p.stdout.eof:
	case <-time.After(drainGrace):
		outR.Close()
	}
	close(p.done)
}

// stop tears the process down (once) and waits until it is gone.
func (p *process) stop() {
	p.stop1.Do(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(stdinGrace):
			p.signalGroup(false)
			select {
			case <-p.exited:
			case <-time.After(termGrace):
				p.signalGroup(true)
			}
		}
	})
	<-p.done
}

// pid is the child's process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exitStatus describes how the child ended, or "" while it runs.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
		return exitText(p.exitErr)
	default:
		return ""
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ProcessState.String()
	}
	return err.Error()
}

func commandLine(cfg ServerConfig) string {
	return strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
}

func closeAll(cs ...io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}
