package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
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
	group  *childproc.Group
	ward   *childproc.Ward // the server dies with indusr, also under SIGKILL
	unward func()
	stdin  *os.File
	stdout *lineFilter
	log    *childlog.Log

	exited  chan struct{} // closed when the child has been reaped
	exitErr error         // its exit status, valid after exited
	done    chan struct{} // closed when the child is reaped and its pipes are drained
	stop1   sync.Once
}

// startProcess starts cfg's command in dir.
func startProcess(cfg mcpconfig.Server, dir string, log *childlog.Log) (*process, error) {
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
	childproc.OwnGroup(cmd)
	ward := childproc.NewWard(workspace.At(dir).Procs())
	ward.Prepare(cmd)
	var temp string
	if cfg.Sandbox.Canon() != jail.Off {
		t, err := jail.NewTemp()
		if err != nil {
			return nil, fmt.Errorf("starting %s: making its sandbox's temp folder: %w", commandLine(cfg), err)
		}
		temp = t
		p := jail.ForMode(cfg.Sandbox, dir, temp)
		p.Network = cfg.SandboxNetwork
		p.Widen = fmt.Sprintf(`to widen it, change "sandbox" (or set "sandboxNetwork") in %s`, where(cfg))
		if err := jail.Wrap(cmd, p); err != nil {
			os.RemoveAll(temp)
			return nil, fmt.Errorf("starting %s: %w", commandLine(cfg), err)
		}
	}
	watch := jail.WatchCmd(cmd)
	pipes, err := childproc.OpenPipes(cmd)
	if err != nil {
		os.RemoveAll(temp)
		return nil, err
	}
	unward, err := ward.Start(cmd, true)
	if err != nil {
		pipes.Close()
		os.RemoveAll(temp)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("starting %s: the command %s was not found (%v); install it or correct \"command\" in %s", commandLine(cfg), cfg.Command, err, where(cfg))
		}
		return nil, fmt.Errorf("starting %s: %w", commandLine(cfg), err)
	}
	pipes.CloseChildEnds()
	inW, outR, errR := pipes.Stdin, pipes.Stdout, pipes.Stderr
	p := &process{
		cmd: cmd, group: childproc.NewGroup(cmd), ward: ward, unward: unward, stdin: inW, stdout: newLineFilter(outR, log), log: log,
		exited: make(chan struct{}), done: make(chan struct{}),
	}
	if temp != "" {
		go func() {
			<-p.done
			os.RemoveAll(temp)
			for _, n := range watch.Sweep() {
				log.Printf("%s", n)
			}
		}()
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
func checkDir(dir string, cfg mcpconfig.Server) error {
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
func where(cfg mcpconfig.Server) string {
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
	p.exitErr = p.group.Reap()
	p.unward()
	close(p.exited)
	p.log.Printf("exited: %v", childproc.ExitText(p.exitErr))
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
	p.stop1.Do(func() { p.group.Stop(p.stdin, p.exited, stdinGrace, termGrace) })
	<-p.done
}

// pid is the child's process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exitStatus describes how the child ended, or "" while it runs.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
		return childproc.ExitText(p.exitErr)
	default:
		return ""
	}
}

func commandLine(cfg mcpconfig.Server) string {
	return strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
}
