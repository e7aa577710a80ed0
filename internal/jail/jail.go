// Package jail confines the children the deck starts on the model's or a
// repository's behalf (bash, background processes, hooks, addon
// processes, delegated agents) with Linux Landlock, so a command can write
// only where its policy says and, with the network off, cannot open TCP
// connections or any socket but a Unix one (a seccomp filter on the
// family). Every confined child also starts a session of its own (no
// controlling terminal of the user's), may not push input into a terminal
// (TIOCSTI, TIOCLINUX), and holds no descriptor above 2 but those it is
// given.
//
// Landlock restricts the calling thread and what it starts later. [Wrap]
// prepares an *exec.Cmd; the supervised start (internal/childproc) takes
// it back with [Unwrap], confines a locked OS thread of its own and forks
// the child from it, so the target starts confined and directly, its argv
// untouched. A prepared cmd started any other way still cannot run
// unconfined: Wrap points it at this program's own executable with the
// policy in an environment variable, and [Main], called first thing in
// main (and in TestMain of the tests that start confined children),
// notices the variable, confines itself and execs the real target; that
// needs no second binary (the mount tier below prefers one).
//
// Landlock is an allow-list: a directory's rights cover everything
// beneath it, so a protected path inside a writable workspace cannot be
// carved out with Landlock alone. WorkspaceWrite therefore has two tiers.
// Where unprivileged user namespaces work, the supervised start sends the
// child through a helper (the small indusr-jail command beside this
// executable or on PATH, else this executable itself through Main)
// started in user and mount namespaces of its own: it binds each existing
// protected path read-only over itself, starts a second helper as the
// first process of a PID namespace of its own (so that every process the
// target starts ends with it), which grants the whole workspace to
// Landlock (which then forbids any change of mounts), drops the
// namespace's capabilities and starts the target. Elsewhere, and for a cmd
// started without the supervised start, the workspace's root stays
// read-only and each of its top-level entries is granted on its own,
// except the protected ones (see [Protected]), listed when each child
// starts: new top-level entries are then refused.
//
// No rule can keep a writable folder from gaining an entry whose name
// does not exist yet, in either tier; a [Watcher] moves a protected path
// that a command made into the quarantine once the command ended.
package jail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// Mode is how much a confined child may change. The zero value is Off.
type Mode string

// The modes.
const (
	// Off starts children unconfined.
	Off Mode = "off"
	// ReadOnly lets a child read anywhere the user can and write only
	// its private temp folder.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite also lets it write inside the workspace, except the
	// protected paths.
	WorkspaceWrite Mode = "workspace-write"
)

// Modes returns the modes in order of what they allow.
func Modes() []Mode { return []Mode{ReadOnly, WorkspaceWrite, Off} }

// ParseMode reads a mode name; "" means Off.
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(s)))
	if m == "" {
		return Off, nil
	}
	if slices.Contains(Modes(), m) {
		return m, nil
	}
	return Off, fmt.Errorf("unknown sandbox mode %q; modes are read-only, workspace-write and off", s)
}

// Canon is m with the zero value spelled Off.
func (m Mode) Canon() Mode {
	if m == "" {
		return Off
	}
	return m
}

// String returns the mode's name ("off" for the zero value).
func (m Mode) String() string {
	if m == "" {
		return string(Off)
	}
	return string(m)
}

// Protected returns the workspace's paths a confined child never writes,
// whatever its grants: what they hold makes later code run unconfined or
// unasked (approvals and state, addons, MCP configs, Claude Code's hooks,
// and what git reads as code or as config that names code: hooks, the
// config files, the pointers to other git folders, and those folders).
// Inside .git and .claude only the listed children are protected; the rest
// of those folders' existing entries (objects, refs, the index) stay
// writable under WorkspaceWrite, so commits still work. A .git that is a
// file (a worktree's pointer) is protected whole, and a .git a command
// makes anywhere below the workspace is moved away (see [Watcher]).
func Protected() []string {
	return []string{".indusvx/", ".indus/", ".mcp.json", ".claude/settings*.json",
		".git/hooks/", ".git/config*", ".git/commondir", ".git/info/", ".git/modules/", ".git/worktrees/", ".git (a file)"}
}

// gitProtected are the children of a git folder that hold code or config
// naming code: hooks; config and config.worktree; commondir, which points
// at another git folder's config; info (attributes, exclude, sparse
// patterns); the git folders of submodules and the worktrees' own config.
func gitProtected(child string) bool {
	switch child {
	case "hooks", "info", "modules", "worktrees", "commondir":
		return true
	}
	return strings.HasPrefix(child, "config")
}

// protectedTop are the top-level names never granted as a whole.
var protectedTop = []string{".indusvx", ".indus", ".mcp.json"}

// Policy is what one confined child may reach. A nil *Policy means
// unconfined.
type Policy struct {
	// Mode names the policy in messages: the session's mode, or
	// ReadOnly for an addon's grant.
	Mode Mode `json:"mode"`
	// Workspace is the workspace's absolute path.
	Workspace string `json:"workspace"`
	// ReadAll lets the child read anywhere the user can; without it the
	// child reads the system's folders (/usr, /etc, ...), the workspace,
	// its temp folder and Read.
	ReadAll bool `json:"readAll,omitempty"`
	// Read are more paths the child may read.
	Read []string `json:"read,omitempty"`
	// Write are paths the child may change (a folder with everything
	// beneath it). Paths inside the workspace are opened beneath it
	// without following symbolic links; a protected path is refused.
	Write []string `json:"write,omitempty"`
	// WriteWorkspace lets the child change the workspace but for the
	// protected paths and the root folder itself.
	WriteWorkspace bool `json:"writeWorkspace,omitempty"`
	// Network lets the child use the network; without it TCP bind and
	// connect and IP sockets are refused.
	Network bool `json:"network,omitempty"`
	// Temp is the child's private temp folder: always writable, and
	// TMPDIR in its environment. "" gives it none.
	Temp string `json:"temp,omitempty"`
	// Widen says how the user widens this policy, for the message of a
	// refused call ("" gives the mode's own advice).
	Widen string `json:"-"`
}

// ForMode is the policy of a session mode for a child in workspace, or
// nil for Off.
func ForMode(m Mode, workspace, temp string) *Policy {
	switch m {
	case ReadOnly:
		return &Policy{Mode: m, Workspace: workspace, ReadAll: true, Temp: temp}
	case WorkspaceWrite:
		return &Policy{Mode: m, Workspace: workspace, ReadAll: true, WriteWorkspace: true, Temp: temp}
	}
	return nil
}

// HelperName is the dedicated helper command, installed beside indusr: it
// starts in a few milliseconds where indusr itself loads much more.
const HelperName = "indusr-jail"

// EnvVar carries a child's policy from [Wrap] to [Main].
const EnvVar = "INDUSR_JAIL"

// spec is what the helper reads: the policy and the program to exec.
type spec struct {
	Policy
	Path string `json:"path"`
	// Mount: the child started in namespaces of its own (the mount
	// tier), see bindProtected.
	Mount bool `json:"mount,omitempty"`
	// Probe: only check that mounting works here, and exit.
	Probe bool `json:"probe,omitempty"`
	// Pass is how many descriptors above 2 the child is given (its
	// ExtraFiles): every other one is closed before the target runs.
	Pass int `json:"pass,omitempty"`
	// NS: the child started in user and mount namespaces of its own,
	// where the helper holds capabilities it must drop, and makes the
	// command a PID namespace of its own (see startInit).
	NS bool `json:"ns,omitempty"`
	// Nested are the .git entries below the workspace's top (other
	// repositories) that existed when the command started, relative to
	// the workspace: the mount tier binds their git code and config
	// read-only too.
	Nested []string `json:"nested,omitempty"`
	// Init: the helper is the first process of that PID namespace,
	// started by the outer helper (see runInit).
	Init bool `json:"init,omitempty"`
}

// self is this program's executable once [Main] ran; "" means no helper.
var self atomic.Pointer[string]

// Errors of [Wrap], for errors.Is.
var (
	// ErrUnavailable is a kernel without Landlock (or another OS).
	ErrUnavailable = errors.New("the sandbox needs Linux Landlock (kernel 5.13 or newer with landlock in its lsm= list), which this system does not offer; run with --sandbox off to start commands unconfined")
	// ErrNoHelper is a program that never called [Main].
	ErrNoHelper = errors.New("this program cannot confine children: it does not call jail.Main at start")
)

// Main must be called first thing in main (or TestMain): in a child that
// [Wrap] prepared it confines the process and execs the target, and never
// returns; otherwise it records that this program can serve as the helper,
// marks every descriptor above 2 that it inherited close-on-exec (so no
// child, confined or not, gets what this program's parent left open), and
// returns at once.
func Main() {
	if raw, ok := os.LookupEnv(EnvVar); ok {
		runHelper(raw) // does not return
	}
	// What this program's parent left open without close-on-exec is
	// its own business: no child of this program inherits it.
	closeInherited(3)
	exe, err := os.Executable()
	if err == nil {
		self.Store(&exe)
	}
}

// Ready says whether this program can confine children here: nil, or
// ErrUnavailable (no Landlock) or ErrNoHelper (no [Main]).
func Ready() error {
	if Probe().ABI < 1 {
		return ErrUnavailable
	}
	if self.Load() == nil {
		return ErrNoHelper
	}
	return nil
}

// Wrap rewrites cmd so that it starts confined by p: cmd's program becomes
// this executable, which confines itself and then execs the original
// program with the original arguments. A nil p leaves cmd alone. Call it
// after cmd's Env, Dir and ExtraFiles are set and before it starts; a
// kernel without Landlock fails with ErrUnavailable rather than run cmd
// unconfined.
//
// The child starts a session of its own (no controlling terminal, so none
// of the user's to type into; it still leads a process group), and gets
// no descriptor above 2 but its ExtraFiles.
func Wrap(cmd *exec.Cmd, p *Policy) error {
	if p == nil || cmd.Err != nil {
		return nil // cmd.Err: Start reports the missing program
	}
	if err := Ready(); err != nil {
		return err
	}
	exe := self.Load()
	b, err := json.Marshal(spec{Policy: *p, Path: cmd.Path, Pass: len(cmd.ExtraFiles)})
	if err != nil {
		return fmt.Errorf("encoding the sandbox policy: %w", err)
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	if p.Temp != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+p.Temp, "TMP="+p.Temp, "TEMP="+p.Temp)
	}
	cmd.Env = append(cmd.Env, EnvVar+"="+string(b))
	if len(cmd.Args) == 0 {
		cmd.Args = []string{cmd.Path}
	}
	cmd.Path = *exe
	newSession(cmd)
	return nil
}

// NewTemp makes a private temp folder for confined children (mode 0700);
// the caller removes it.
func NewTemp() (string, error) { return os.MkdirTemp("", "indusr-sandbox-") }

// Refused reports whether a failed child's output looks like the sandbox
// refused it: the messages of EACCES and EPERM, which is what Landlock
// and the seccomp filter return, and EROFS and EBUSY, which a protected
// path bound read-only returns to a write and to a rename over it.
func Refused(output string) bool {
	return strings.Contains(output, "Permission denied") || strings.Contains(output, "Operation not permitted") ||
		strings.Contains(output, "Device or resource busy") ||
		strings.Contains(output, "Read-only file system") || strings.Contains(output, "read-only file system") ||
		strings.Contains(output, "permission denied") || strings.Contains(output, "operation not permitted")
}

// Explain is the note added to the result of a call the sandbox may have
// refused: what the policy allows and how to widen it.
func (p *Policy) Explain() string {
	var can []string
	switch {
	case p.WriteWorkspace && MountTier() == nil:
		can = append(can, "write anywhere inside the workspace but "+strings.Join(Protected(), ", "))
	case p.WriteWorkspace:
		can = append(can, "write inside the workspace (not its top folder itself, nor "+strings.Join(Protected(), ", ")+")")
	case len(p.Write) > 0:
		can = append(can, "write "+strings.Join(p.Write, ", "))
	default:
		can = append(can, "write nowhere")
	}
	if p.Temp != "" {
		can[0] += " and in $TMPDIR"
	}
	if !p.ReadAll {
		can = append(can, "read only the system folders, the workspace"+and(p.Read))
	}
	if !p.Network {
		can = append(can, "use no network")
	} else {
		can = append(can, "use the network")
	}
	widen := p.Widen
	if widen == "" {
		widen = "the user can start indusr with --sandbox workspace-write (or off) or set INDUSR_SANDBOX; do not retry the same command"
		if p.WriteWorkspace && MountTier() == nil {
			widen = "The protected paths stay read-only in every sandboxed mode: ask the user to change them or to run the command with --sandbox off; do not retry the same command"
		} else if p.WriteWorkspace {
			widen = "create a new top-level entry with the write tool, or ask the user to run it with --sandbox off; do not retry the same command"
		}
	}
	return fmt.Sprintf("[sandbox %s: this command may %s; a refused action fails with \"Permission denied\" or \"Read-only file system\". %s]", p.Mode, strings.Join(can, ", "), widen)
}

func and(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	return ", " + strings.Join(paths, ", ")
}

// Clean returns p with its paths absolute and clean, relative ones
// anchored at the workspace.
func (p Policy) Clean() Policy {
	abs := func(ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, s := range ps {
			if !filepath.IsAbs(s) {
				s = filepath.Join(p.Workspace, s)
			}
			out = append(out, filepath.Clean(s))
		}
		return out
	}
	p.Read, p.Write = abs(p.Read), abs(p.Write)
	return p
}

// IsProtected reports whether rel (relative to the workspace, slashes
// or not) is a protected path or lies beneath one.
func IsProtected(rel string) bool {
	rel = filepath.ToSlash(filepath.Clean(rel))
	first, rest, _ := strings.Cut(rel, "/")
	switch first {
	case ".indusvx", ".indus", ".mcp.json":
		return true
	case ".git":
		second, _, _ := strings.Cut(rest, "/")
		return rest == "" || gitProtected(second)
	case ".claude":
		second, _, _ := strings.Cut(rest, "/")
		ok, _ := filepath.Match("settings*.json", second)
		return rest == "" || ok
	}
	return false
}

// IsGitProtected reports whether rel (relative to a workspace root) is a
// path git would read as code or as config that names code, at any depth:
// a protected child of the workspace's .git (see [Protected]), a .git
// itself (a folder or a worktree's pointer file), or anything inside a
// .git below the top, which is another repository's. The deck's own file
// tools refuse these, as the sandbox does.
func IsGitProtected(rel string) bool {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	for i, p := range parts {
		if !strings.EqualFold(p, ".git") {
			continue
		}
		if i > 0 || len(parts) == 1 {
			return true // a nested repository, or .git itself
		}
		return gitProtected(parts[1])
	}
	return false
}

type policyKey struct{}

// NewContext returns ctx carrying p, for a runner that learns its policy
// from the call (nil: unconfined).
func NewContext(ctx context.Context, p *Policy) context.Context {
	return context.WithValue(ctx, policyKey{}, p)
}

// FromContext returns the policy ctx carries, or nil.
func FromContext(ctx context.Context) *Policy {
	p, _ := ctx.Value(policyKey{}).(*Policy)
	return p
}
