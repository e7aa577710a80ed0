//go:build linux

package jail

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// runHelper is the child's side of [Wrap]: it confines this process and
// execs the target. Everything happens on one locked thread, because
// Landlock and seccomp bind the thread that asks and exec keeps only the
// thread that calls it. A failure ends the child with exit status 126 (the
// shell's "cannot execute") and a message on stderr: never an unconfined
// target.
func runHelper(raw string) {
	runtime.LockOSThread()
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "indusr sandbox: %v; the command did not run\n", err)
		os.Exit(126)
	}
	var s spec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		fail(fmt.Errorf("reading the policy: %w", err))
	}
	if s.Probe {
		if err := probeMount(); err != nil {
			fmt.Fprintf(os.Stderr, "indusr sandbox: cannot mount in a user namespace: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Descriptors the starter did not mean to pass (left open by whoever
	// started indusr) close at the exec below, before the target can
	// use them: Landlock does not restrict what is already open.
	closeInherited(3 + max(s.Pass, 0))
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, EnvVar+"=") })
	if s.Init {
		runInit(s, env, fail) // does not return
	}
	if s.Mount {
		switch err := bindProtected(s.Workspace, s.Nested); {
		case errors.Is(err, errNoMount):
			s.Mount = false // a namespace without mount rights: the per-entry rules
		case err != nil:
			fail(err)
		}
	}
	if s.NS {
		startInit(s, env, fail) // returns only where no PID namespace can be made
	}
	if err := confine(s.Policy, s.Nested, s.Mount, s.NS); err != nil {
		fail(err)
	}
	err := syscall.Exec(s.Path, os.Args, env)
	fail(fmt.Errorf("starting %s: %w", s.Path, err))
}

// confine applies p to the calling thread: no new privileges (setuid
// bits stop working), the Landlock ruleset, and the seccomp filter (no
// terminal input, and with the network off no socket but a Unix one).
// mounted says the protected paths are bound read-only (the mount tier):
// the whole workspace is then granted. inNS says the thread runs in a
// user namespace of its own, whose capabilities are dropped. nested are
// the repositories below the top (see spec.Nested), whose git code and
// config the per-entry rules leave read-only.
func confine(p Policy, nested []string, mounted, inNS bool) error {
	abi := Probe().ABI
	if abi < 1 {
		return ErrUnavailable
	}
	handled := handledFS(abi)
	attr := unix.LandlockRulesetAttr{Access_fs: handled}
	if !p.Network && abi >= 4 {
		attr.Access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, err := landlockCreateRuleset(&attr)
	if err != nil {
		return fmt.Errorf("creating the Landlock ruleset: %w", err)
	}
	defer syscall.Close(fd)
	b := &builder{ruleset: fd, handled: handled, mounted: mounted, nested: nested}
	b.rules(p)
	if b.err != nil {
		return b.err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if err := landlockRestrictSelf(fd); err != nil {
		return fmt.Errorf("applying the Landlock ruleset: %w", err)
	}
	if mounted || inNS {
		if err := dropPrivileges(); err != nil {
			return err
		}
	}
	if err := installFilter(p.Network); err != nil {
		return fmt.Errorf("installing the seccomp filter: %w", err)
	}
	return nil
}

// closeInherited marks every descriptor from first up close-on-exec, in
// one close_range call (Linux 5.11), else one by one. The Go runtime's own
// descriptors are close-on-exec already, so marking them changes nothing.
func closeInherited(first int) {
	if unix.CloseRange(uint(first), ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= first {
			unix.CloseOnExec(fd)
		}
	}
}

// newSession makes cmd start a session of its own: no controlling
// terminal, and a process group it leads (setpgid would fail on a session
// leader, so it is not asked for).
func newSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Setsid, a.Setpgid, a.Pgid, a.Foreground = true, false, 0, false
}

// handledFS is every file-system right the kernel's ABI knows: what is
// handled and not granted is denied.
func handledFS(abi int) uint64 {
	h := uint64(unix.LANDLOCK_ACCESS_FS_MAKE_SYM<<1) - 1 // the rights of ABI 1
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		h |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return h
}

// The rights granted. Refer (moving or linking a file into another
// folder) is never granted: with it a hard link could carry a protected
// or outside file's inode into a writable folder.
const (
	readFile  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE
	readDir   = readFile | unix.LANDLOCK_ACCESS_FS_READ_DIR
	writeFile = readFile | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	writeDir  = readDir | writeFile | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
)

// systemRead are the folders a child without ReadAll still reads: what
// programs need to load and run. The home folder is not among them.
var systemRead = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/proc", "/sys", "/dev"}

// devices every child may write: the null and random devices and
// terminals (a pseudo-terminal's programs need their ioctls).
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

// builder adds rules to a ruleset; the first error sticks.
type builder struct {
	ruleset int
	handled uint64
	mounted bool     // the mount tier: see confine
	nested  []string // the .git entries below the top: see confine
	err     error
}

func (b *builder) rules(p Policy) {
	if p.ReadAll {
		b.path("/", readDir, false)
	} else {
		for _, d := range systemRead {
			b.path(d, readDir, false)
		}
		b.path(p.Workspace, readDir, true)
		for _, r := range p.Read {
			b.path(r, readDir, false)
		}
	}
	for _, d := range devices {
		b.path(d, writeFile, false)
	}
	b.path("/dev/pts", writeDir, false)
	if p.Temp != "" {
		b.path(p.Temp, writeDir, true)
	}
	for _, w := range p.Write {
		b.write(p.Workspace, w)
	}
	if p.WriteWorkspace {
		b.workspace(p.Workspace)
	}
}

// refer lets files move and link between the folders of the whole
// workspace, in the mount tier: the protected paths are other mounts
// there, which no rename or link crosses, and outside files are not
// granted it.
const refer = writeDir | unix.LANDLOCK_ACCESS_FS_REFER

// path grants rights on path (a file gets only the file rights). A path
// that is missing is skipped, unless must.
func (b *builder) path(path string, rights uint64, must bool) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if must && b.err == nil {
			b.err = fmt.Errorf("opening %s: %w", path, err)
		}
		return
	}
	defer unix.Close(fd)
	b.add(fd, path, rights)
}

// add grants rights on the object fd refers to; a symbolic link is never
// granted.
func (b *builder) add(fd int, path string, rights uint64) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return
	case unix.S_IFDIR:
	default:
		rights &= writeFile
	}
	if err := landlockAddPath(b.ruleset, fd, rights&b.handled); err != nil && b.err == nil {
		b.err = fmt.Errorf("granting %s: %w", path, err)
	}
}

// write grants a write path. One inside the workspace is opened beneath
// it without following any symbolic link, so a link planted by the
// repository cannot point the grant elsewhere, and a protected one is
// refused.
func (b *builder) write(workspace, path string) {
	rel, err := filepath.Rel(workspace, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		b.path(path, writeDir, false)
		return
	}
	if rel == "." {
		b.workspace(workspace)
		return
	}
	if IsProtected(rel) {
		if b.err == nil {
			b.err = fmt.Errorf("the write grant %s names a protected path (%s)", path, strings.Join(Protected(), ", "))
		}
		return
	}
	root, err := unix.Open(workspace, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(root)
	fd, err := unix.Openat2(root, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS})
	if err != nil {
		return // missing, or reached through a link: not granted
	}
	defer unix.Close(fd)
	b.add(fd, path, writeDir)
}

// workspace grants the workspace's top-level entries one by one, leaving
// the root folder itself and the protected entries read-only; inside .git
// and .claude it grants the entries that are not protected. An entry that
// is a symbolic link is not granted (its target, if inside, is an entry
// of its own). In the mount tier the whole workspace is granted instead.
func (b *builder) workspace(dir string) {
	if b.mounted {
		b.path(dir, refer, true)
		return
	}
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if b.err == nil {
			b.err = fmt.Errorf("opening the workspace %s: %w", dir, err)
		}
		return
	}
	defer unix.Close(root)
	b.entries(root, dir, "")
}

// entries grants the entries of the folder rel (beneath root) that are not
// protected. A folder that holds a protected path is not granted whole but
// descended into, its other entries granted one by one: .git and .claude
// at the top, and the folders on the way to a repository below the top
// (whose .git is descended into too, or, as a pointer file, left alone).
func (b *builder) entries(root int, dir, rel string) {
	f, err := os.Open(filepath.Join(dir, rel))
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, name := range names {
		r := filepath.Join(rel, name)
		descend := rel == "" && (name == ".git" || name == ".claude") || b.holdsNested(r)
		if !descend && (rel == "" && slices.Contains(protectedTop, name) || IsProtected(r) || b.nestedProtected(r)) {
			continue
		}
		fd, err := unix.Openat2(root, r, &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS})
		if err != nil {
			continue
		}
		if descend {
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
				b.entries(root, dir, r) // grant its unprotected children
			}
			// A .git file (a worktree's pointer to its git folder) stays
			// read-only: rewritten, it could point git at planted hooks.
			unix.Close(fd)
			continue
		}
		b.add(fd, filepath.Join(dir, r), writeDir)
		unix.Close(fd)
	}
}

// holdsNested reports whether r is a repository's .git below the top, or
// a folder on the way to one.
func (b *builder) holdsNested(r string) bool {
	r = filepath.ToSlash(r)
	for _, n := range b.nested {
		if n == r || strings.HasPrefix(n, r+"/") {
			return true
		}
	}
	return false
}

// nestedProtected reports whether r is a protected child of a repository's
// .git below the top.
func (b *builder) nestedProtected(r string) bool {
	r = filepath.ToSlash(r)
	parent, name := path.Split(r)
	return slices.Contains(b.nested, strings.TrimSuffix(parent, "/")) && gitProtected(name)
}

// Report is what the sandbox can enforce on this system.
type Report struct {
	// ABI is the kernel's Landlock ABI version; 0 means none.
	ABI int
	// Err says why Landlock is missing.
	Err error
	// Seccomp says the network filter can close IP sockets (UDP too).
	Seccomp bool
	// Mount is nil when workspace-write uses the mount tier here (see
	// MountTier; indusr sandbox check asserts it by starting the helper),
	// or why not.
	Mount error
}

var probed = sync.OnceValue(probe)

// Probe asks the kernel which Landlock ABI it offers (once).
func Probe() Report { return probed() }

func probe() Report {
	abi, err := landlockABI()
	r := Report{ABI: abi, Err: err, Seccomp: seccompArch != 0, Mount: namespacesAllowed()}
	if err != nil {
		r.ABI = 0
		if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP) {
			r.Err = errors.New("Landlock is not supported by this kernel or not enabled at boot")
		}
	}
	return r
}

// openDirAt opens the folder name beneath the open folder d, not through
// a symbolic link; nil if it cannot.
func openDirAt(d *os.File, name string) *os.File {
	fd, err := unix.Openat(int(d.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), name)
}
