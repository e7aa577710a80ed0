package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"

	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/internal/childlog"
	"github.com/indusagi/induscode/internal/childproc"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/workspace"
)

// process is a running stdio server, a supervised child (childproc.Child):
// it leads its own process group, so teardown reaches what it spawned
// (npx starts node, uvx starts python), and it dies with indusr, also
// under SIGKILL. Its stdout goes through a lineFilter and its stderr to
// the server's log.
type process struct {
	child  *childproc.Child
	stdin  *os.File
	stdout *lineFilter
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
	ward := childproc.NewWard(workspace.At(dir).Procs())
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
	p := &process{}
	child, err := childproc.Start(cmd, childproc.Options{
		Ward: ward,
		Log:  log,
		Stdio: func(stdin, stdout *os.File) <-chan struct{} {
			p.stdin, p.stdout = stdin, newLineFilter(stdout, log)
			return p.stdout.eof
		},
		Ended: func(c *childproc.Child) {
			log.Printf("exited: %v", childproc.ExitText(c.Err()))
			ward.Close() // what left the group (setsid)
			if temp != "" {
				os.RemoveAll(temp)
				for _, n := range watch.Sweep() {
					log.Printf("%s", n)
				}
			}
		},
	})
	if err != nil {
		os.RemoveAll(temp)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("starting %s: the command %s was not found (%v); install it or correct \"command\" in %s", commandLine(cfg), cfg.Command, err, where(cfg))
		}
		return nil, fmt.Errorf("starting %s: %w", commandLine(cfg), err)
	}
	p.child = child
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

// stop tears the process down (once) and waits until it is gone.
func (p *process) stop() { p.child.Stop() }

// pid is the child's process id.
func (p *process) pid() int { return p.child.Pid() }

// exitStatus describes how the child ended, or "" while it runs.
func (p *process) exitStatus() string {
	select {
	case <-p.child.Reaped():
		return childproc.ExitText(p.child.Err())
	default:
		return ""
	}
}

func commandLine(cfg mcpconfig.Server) string {
	return strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
}
