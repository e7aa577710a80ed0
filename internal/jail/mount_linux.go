//go:build linux

package jail

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The mount tier of WorkspaceWrite. Landlock cannot carve a protected path
// out of a writable folder, so here the child starts in a user and mount
// namespace of its own, where the helper binds every existing protected
// path read-only over itself and then grants the whole workspace. A bind
// is a mount point: it cannot be renamed, removed or replaced, nor its
// contents linked elsewhere, and Landlock forbids changing mounts once it
// applies. .git and .claude are bound over themselves writable, so they
// cannot be renamed away from the binds beneath them either.

// nsFlags are the namespaces a child of the mount tier starts in.
const nsFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS

// bound are the paths bound over themselves (relative to the workspace,
// in order: a parent before its children), and whether read-only. The
// protected children of .git follow them (see gitBinds).
var bound = []struct {
	rel string
	ro  bool
}{
	{".indusvx", true}, {".indus", true}, {".mcp.json", true},
	{".git", false},
	{".claude", false},
}

// helper is the program that runs between clone and exec: the dedicated
// helper beside this executable or on PATH, else this executable itself.
var helper = sync.OnceValue(func() string {
	exe := self.Load()
	if exe == nil {
		return ""
	}
	beside := filepath.Join(filepath.Dir(*exe), HelperName)
	if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return beside
	}
	if p, err := exec.LookPath(HelperName); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return *exe
})

// Helper returns the program that sets up a mount-tier child: the
// dedicated helper's path, or this program's own executable when the
// helper is not installed ("" without [Main]).
func Helper() string { return helper() }

// namespacesAllowed reads the system's switches for unprivileged user
// namespaces. A system that lets them be made but grants nothing inside
// them some other way is caught by the helper, which then falls back to
// the per-entry rules.
var namespacesAllowed = sync.OnceValue(func() error {
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return errors.New("user namespaces are disabled (user.max_user_namespaces is 0)")
	}
	if b, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return errors.New("unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone is 0)")
	}
	if b, err := os.ReadFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); err == nil && strings.TrimSpace(string(b)) == "1" {
		// The namespace is made, but nothing may be mounted in it.
		return errors.New("AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns is 1)")
	}
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		return errors.New("this kernel has no user namespaces")
	}
	return nil
})

// toMountTier points cmd at the helper in new user and mount namespaces,
// where the command gets a PID namespace of its own, and a policy that
// writes the workspace the binds of the mount tier. The caller's ids map
// to themselves, so files keep their owner.
func toMountTier(cmd *exec.Cmd, s spec) error {
	s.NS, s.Mount, s.Pass = true, s.WriteWorkspace, len(cmd.ExtraFiles)
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	// .indusvx is ours: made now, so that it is bound read-only too.
	_ = os.Mkdir(filepath.Join(s.Workspace, ".indusvx"), 0o755)
	isSpec := func(kv string) bool { return strings.HasPrefix(kv, EnvVar+"=") }
	cmd.Env = append(slices.DeleteFunc(slices.Clone(cmd.Env), isSpec), EnvVar+"="+string(b))
	cmd.Path = helper()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= nsFlags
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
	// The namespace's capabilities would end at the exec of the helper (a
	// user other than root keeps none): these two are kept across it, to
	// mount and to lock the secure bits; the helper drops them all.
	a.AmbientCaps = nsCaps
	return nil
}

// nsCaps are the capabilities the helper keeps, in its namespace only.
var nsCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}

// errNoMount is a namespace in which this process may not mount: the
// helper then keeps to the per-entry rules.
var errNoMount = errors.New("no mount rights in the namespace")

// bindProtected binds the existing protected paths of workspace over
// themselves, read-only but the folders .git and .claude. It returns errNoMount when
// the first bind is refused for want of rights (nothing changed yet).
func bindProtected(workspace string, nested []string) error {
	root, err := unix.Open(workspace, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening the workspace %s: %w", workspace, err)
	}
	defer unix.Close(root)
	first := true
	for _, b := range bound {
		ro := b.ro
		if b.rel == ".git" {
			ro = isFile(root, ".git") // a worktree's pointer: protected whole
		}
		err := bindOver(root, b.rel, ro)
		if first && (errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES)) {
			return errNoMount
		}
		if err != nil {
			return fmt.Errorf("protecting %s: %w", b.rel, err)
		}
		first = false
	}
	for _, rel := range append(gitChildren(workspace, ".git"), claudeSettings(workspace)...) {
		if err := bindOver(root, rel, true); err != nil {
			return fmt.Errorf("protecting %s: %w", rel, err)
		}
	}
	return bindNested(root, workspace, nested)
}

// bindNested binds the git code and config of the repositories below the
// top that existed when the command started: a .git pointer file whole, a
// .git folder's protected children. A folder is first bound over itself
// writable, so it cannot be renamed away from the binds beneath it. One
// that moved or changed meanwhile is skipped: the sweep looks at it.
func bindNested(root int, workspace string, nested []string) error {
	for _, rel := range nested {
		if !isNested(rel) || !filepath.IsLocal(rel) {
			continue
		}
		if isFile(root, rel) {
			if err := bindOver(root, rel, true); err != nil {
				return fmt.Errorf("protecting %s: %w", rel, err)
			}
			continue
		}
		if err := bindOver(root, rel, false); err != nil {
			return fmt.Errorf("protecting %s: %w", rel, err)
		}
		for _, child := range gitChildren(workspace, rel) {
			if err := bindOver(root, child, true); err != nil {
				return fmt.Errorf("protecting %s: %w", child, err)
			}
		}
	}
	return nil
}

// isFile reports whether rel, beneath root and not through a link, is a
// regular file.
func isFile(root int, rel string) bool {
	var st unix.Stat_t
	err := unix.Fstatat(root, rel, &st, unix.AT_SYMLINK_NOFOLLOW)
	return err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG
}

// gitChildren lists the protected children of the git folder rel of
// workspace (hooks, config*, commondir, info, modules, worktrees) that
// exist. It is read through a link-free path (see bindOver, which
// refuses the rest).
func gitChildren(workspace, rel string) []string {
	f, err := os.Open(filepath.Join(workspace, rel))
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	slices.Sort(names)
	var out []string
	for _, n := range names {
		if gitProtected(n) {
			out = append(out, rel+"/"+n)
		}
	}
	return out
}

// bindOver mounts a copy of rel (with what is mounted beneath it) over rel
// itself, read-only if ro. A missing rel is left alone (the sweep checks
// it afterwards), and so is one reached through a symbolic link.
func bindOver(root int, rel string, ro bool) error {
	fd, err := unix.Openat2(root, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS})
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil
		}
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFDIR && t != unix.S_IFREG {
		return nil // a link, socket or device: not bindable, the sweep watches it
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
	if err != nil {
		return err
	}
	defer unix.Close(tree)
	if ro {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			return err
		}
	}
	return unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// claudeSettings lists .claude/settings*.json in workspace.
func claudeSettings(workspace string) []string {
	names, _ := filepath.Glob(filepath.Join(escapeGlob(workspace), ".claude", "settings*.json"))
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, filepath.Join(".claude", filepath.Base(n)))
	}
	return out
}

func escapeGlob(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// dropPrivileges leaves the capabilities the new user namespace gave:
// none are kept across exec, even for uid 0 (SECBIT_NOROOT, locked).
func dropPrivileges() error {
	const secbits = 1<<0 | 1<<1 // SECBIT_NOROOT, SECBIT_NOROOT_LOCKED
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, secbits, 0, 0, 0); err != nil {
		return fmt.Errorf("setting the secure bits: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("dropping the capabilities: %w", err)
	}
	return nil
}

// probeMount is the helper's check for sandbox check: can it mount in the
// namespace it was started in?
func probeMount() error {
	tree, err := unix.OpenTree(unix.AT_FDCWD, "/", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return err
	}
	unix.Close(tree)
	return nil
}

// NamespaceProbe returns a command that reports whether the mount tier
// works here: it exits 0 when the helper could mount in new namespaces.
// Start it through the supervised start. A nil cmd and why say that the
// tier is ruled out without starting anything.
func NamespaceProbe() (cmd *exec.Cmd, why error) {
	if err := namespacesAllowed(); err != nil {
		return nil, err
	}
	h := helper()
	if h == "" {
		return nil, ErrNoHelper
	}
	cmd = exec.Command(h)
	cmd.Env = append(os.Environ(), EnvVar+`={"probe":true}`)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  nsFlags,
		AmbientCaps: nsCaps,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
	}
	return cmd, nil
}

// MountTier says whether workspace-write children use the mount tier here
// (nil), or why not. It does not start anything: a system that makes the
// namespaces but grants no mount rights in them shows only in the helper,
// which then keeps to the per-entry rules ([NamespaceProbe] finds out).
func MountTier() error {
	if self.Load() == nil {
		return ErrNoHelper
	}
	return namespacesAllowed()
}
