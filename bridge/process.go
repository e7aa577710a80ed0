package bridge

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

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
	log    *serverLog

	exited  chan struct{} // closed when the child has been reaped
	exitErr error         // its exit status, valid after exited
	done    chan struct{} // closed when the child is reaped and its pipes are drained
	stop1   sync.Once
}

// startProcess starts cfg's command in dir.
func startProcess(cfg ServerConfig, dir string, log *serverLog) (*process, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = dir
	if cfg.Dir != "" {
		cmd.Dir = cfg.Dir
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
		return nil, fmt.Errorf("starting %s: %w", commandLine(cfg), err)
	}
	closeAll(inR, outW, errW) // the child's ends
	p := &process{
		cmd: cmd, ward: ward, unward: unward, stdin: inW, stdout: newLineFilter(outR, log), log: log,
		exited: make(chan struct{}), done: make(chan struct{}),
	}
	log.printf("started %s (pid %d)", commandLine(cfg), cmd.Process.Pid)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(errR)
		sc.Buffer(make([]byte, 4096), maxFrame)
		for sc.Scan() {
			log.line("stderr", sc.Text())
		}
	}()
	go p.reap(outR, errR, stderrDone)
	return p, nil
}

// reap waits for the child, then clears out its process group and drains
// the pipes, closing them itself if a stray descendant keeps them open.
func (p *process) reap(outR, errR *os.File, stderrDone chan struct{}) {
	p.exitErr = p.cmd.Wait()
	p.unward()
	close(p.exited)
	p.log.printf("exited: %v", exitText(p.exitErr))
	killGroup(p.cmd, true)
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
			killGroup(p.cmd, false)
			select {
			case <-p.exited:
			case <-time.After(termGrace):
				killGroup(p.cmd, true)
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
