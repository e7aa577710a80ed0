//go:build linux

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/indusagi/induscode/internal/atomicfile"
)

// dirFlags open one folder of the walk: never through a symlink.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// OpenFile is os.OpenFile for a path under a state folder: every folder on
// the way and the file itself are opened without following a symlink and
// must belong to the user, and the file must be a regular file (a named
// pipe is refused, not waited on). Parent folders are not created; see
// [MkdirAll].
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if _, _, ok := beneath(path); !ok {
		return os.OpenFile(path, flag, perm)
	}
	path = filepath.Clean(path)
	dfd, err := openDir(filepath.Dir(path), false, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	return openAt(dfd, path, flag, perm)
}

// openAt opens the regular file path, whose folder is dfd.
func openAt(dfd int, path string, flag int, perm fs.FileMode) (*os.File, error) {
	name := filepath.Base(path)
	// O_NONBLOCK: opening a named pipe must not wait for its other end;
	// it has no effect on the regular file that is all we accept.
	fd, err := unix.Openat(dfd, name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, refusal(dfd, name, path, "open", err)
	}
	if err := checkFile(fd, path); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// checkFile accepts an open regular file of the user's.
func checkFile(fd int, path string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return &UnsafeError{Path: path, Reason: kind(st.Mode)}
	}
	return checkOwner(&st, path)
}

func checkOwner(st *unix.Stat_t, path string) error {
	if me := os.Geteuid(); int(st.Uid) != me {
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("owned by uid %d, not by you (uid %d)", st.Uid, me)}
	}
	return nil
}

// MkdirAll creates the folder path and its parents like os.MkdirAll. The
// state folder, when it is created here, gets a .gitignore holding "*"
// first, so the state never shows up in git status.
func MkdirAll(path string, perm fs.FileMode) error {
	if _, _, ok := beneath(path); !ok {
		return os.MkdirAll(path, perm)
	}
	fd, err := openDir(path, true, perm)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// openDir opens the folder path (the state folder or one below it),
// creating what is missing with perm when create is set.
func openDir(path string, create bool, perm fs.FileMode) (int, error) {
	state, names, ok := beneath(path)
	if !ok {
		return -1, fmt.Errorf("%s is not under a state folder (%s)", path, StateDir)
	}
	fd, err := openState(state, create)
	if err != nil {
		return -1, err
	}
	at := state
	for _, name := range names {
		at = filepath.Join(at, name)
		next, err := unix.Openat(fd, name, dirFlags, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err := unix.Mkdirat(fd, name, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
				unix.Close(fd)
				return -1, &fs.PathError{Op: "mkdir", Path: at, Err: err}
			}
			next, err = unix.Openat(fd, name, dirFlags, 0)
		}
		if err == nil {
			err = checkDir(next, at)
			if err != nil {
				unix.Close(next)
			}
		} else {
			err = refusal(fd, name, at, "open", err)
		}
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// openState opens the state folder itself, which must be a real folder of
// the user's; with create a missing one is made, .gitignore first.
func openState(state string, create bool) (int, error) {
	fresh := false
	if create {
		// The workspace itself is the user's choice, links and all.
		if err := os.MkdirAll(filepath.Dir(state), 0o755); err != nil {
			return -1, err
		}
		err := os.Mkdir(state, 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return -1, err
		}
		fresh = err == nil
	}
	fd, err := unix.Open(state, dirFlags, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EMLINK) {
			if fi, lerr := os.Lstat(state); lerr == nil {
				return -1, &UnsafeError{Path: state, Reason: kindOf(fi.Mode())}
			}
		}
		return -1, &fs.PathError{Op: "open", Path: state, Err: err}
	}
	if err := checkDir(fd, state); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if fresh {
		if err := writeIgnoreAt(fd); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("writing %s: %w", filepath.Join(state, ".gitignore"), err)
		}
	}
	return fd, nil
}

func checkDir(fd int, path string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return checkOwner(&st, path)
}

// writeIgnoreAt writes the .gitignore of the state folder open as fd.
func writeIgnoreAt(fd int) error {
	f, err := unix.Openat(fd, ".gitignore", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if errors.Is(err, unix.EEXIST) {
		return nil
	}
	if err != nil {
		return err
	}
	file := os.NewFile(uintptr(f), ".gitignore")
	_, err = file.WriteString(ignoreAll)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}

// refusal explains a failed open of name in the folder dfd: an entry of
// the wrong kind (a symlink, a pipe where a folder was wanted...) is an
// [*UnsafeError]; anything else is the plain error.
func refusal(dfd int, name, path, op string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EMLINK) ||
		errors.Is(err, unix.ENXIO) || errors.Is(err, unix.EISDIR) {
		var st unix.Stat_t
		if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			return &UnsafeError{Path: path, Reason: kind(st.Mode)}
		}
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

func kind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return "a symlink"
	case unix.S_IFIFO:
		return "a named pipe"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFDIR:
		return "a folder where a file belongs"
	case unix.S_IFREG:
		return "a file where a folder belongs"
	}
	return "not a file or folder"
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m.IsRegular():
		return "a file where a folder belongs"
	}
	return "not a folder"
}

// parent opens the folder of path (which must be below a state folder).
func parent(path string) (int, string, error) {
	_, names, ok := beneath(path)
	if !ok || len(names) == 0 {
		return -1, "", fmt.Errorf("%s is not a file under a state folder (%s)", path, StateDir)
	}
	path = filepath.Clean(path)
	fd, err := openDir(filepath.Dir(path), false, 0)
	return fd, filepath.Base(path), err
}

// ReadDir lists the folder at path, sorted by name, like os.ReadDir.
func ReadDir(path string) ([]fs.DirEntry, error) {
	if _, _, ok := beneath(path); !ok {
		return os.ReadDir(path)
	}
	fd, err := openDir(path, false, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// Lstat describes the entry at path without following it, like os.Lstat;
// the folders on the way are checked as [OpenFile] checks them.
func Lstat(path string) (fs.FileInfo, error) {
	if _, names, ok := beneath(path); !ok || len(names) == 0 {
		return os.Lstat(path)
	}
	dfd, name, err := parent(path)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return &statInfo{name: name, st: st}, nil
}

// Remove removes the file or empty folder at path, like os.Remove (a
// symlink is removed, never followed).
func Remove(path string) error {
	if _, _, ok := beneath(path); !ok {
		return os.Remove(path)
	}
	dfd, name, err := parent(path)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	err = unix.Unlinkat(dfd, name, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		if derr := unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR); derr == nil || !errors.Is(derr, unix.ENOTDIR) {
			err = derr
		}
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// Rename renames oldpath to newpath like os.Rename; both must be under the
// same state folder (or both under none).
func Rename(oldpath, newpath string) error {
	return betweenTwo("rename", oldpath, newpath, os.Rename, func(ofd int, oname string, nfd int, nname string) error {
		return unix.Renameat(ofd, oname, nfd, nname)
	})
}

// CreateTemp creates a new temp file in dir, named by
// [atomicfile.TempName], like atomicfile.CreateTemp.
func CreateTemp(dir string) (*os.File, error) {
	if _, _, ok := beneath(dir); !ok {
		return atomicfile.CreateTemp(dir)
	}
	dfd, err := openDir(dir, false, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	return createTempAt(dfd, dir)
}

func createTempAt(dfd int, dir string) (*os.File, error) {
	for {
		f, err := openAt(dfd, filepath.Join(dir, atomicfile.TempName()), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
}

// WriteFile atomically replaces the file at path with data (temp file,
// fsync, rename, folder sync), like atomicfile.WriteFile; the folder must
// exist.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if _, _, ok := beneath(path); !ok {
		return atomicfile.WriteFile(path, data, perm)
	}
	dfd, name, err := parent(path)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	// A rename would replace a planted link or pipe harmlessly, but it is
	// refused like everywhere else, so the user hears of it.
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			return &UnsafeError{Path: path, Reason: kind(st.Mode)}
		}
		if err := checkOwner(&st, path); err != nil {
			return err
		}
	}
	state, _, _ := beneath(path)
	journal := At(filepath.Dir(state)).Journal()
	var tmp *os.File
	for {
		temp := filepath.Join(filepath.Dir(filepath.Clean(path)), atomicfile.TempName())
		forget := journal.Record(temp)
		defer forget()
		tmp, err = openAt(dfd, temp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	tmpName := filepath.Base(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if rerr := unix.Renameat(dfd, tmpName, dfd, name); rerr != nil {
			err = &os.LinkError{Op: "rename", Old: tmp.Name(), New: path, Err: rerr}
		}
	}
	if err != nil {
		_ = unix.Unlinkat(dfd, tmpName, 0)
		return err
	}
	_ = unix.Fsync(dfd) // best effort: some file systems cannot sync a folder
	SweepSometimes(filepath.Dir(filepath.Clean(path)))
	return nil
}

// Sweep removes the temp files a killed writer left in the folder dir
// under a state folder, as [atomicfile.Sweep] does elsewhere.
func Sweep(dir string) int {
	if _, _, ok := beneath(dir); !ok {
		return atomicfile.Sweep(dir)
	}
	entries, err := ReadDir(dir)
	if err != nil {
		return 0
	}
	return atomicfile.SweepEntries(entries, func(name string) (fs.FileInfo, error) {
		return Lstat(filepath.Join(dir, name))
	}, func(name string) error {
		return Remove(filepath.Join(dir, name))
	})
}

// statInfo is the fs.FileInfo of an fstatat.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}

// renameInto moves the file old (outside any state folder) into the
// folder dir under a state folder as name, unless name exists there.
func renameInto(old, dir, name string) error {
	dfd, err := openDir(dir, false, 0)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return nil // a newer file of that name; keep both
	}
	if err := unix.Renameat(unix.AT_FDCWD, old, dfd, name); err != nil {
		return &os.LinkError{Op: "rename", Old: old, New: filepath.Join(dir, name), Err: err}
	}
	return nil
}

// Link makes newpath a second name of the file at oldpath, like os.Link;
// both must be under the same state folder.
func Link(oldpath, newpath string) error {
	return betweenTwo("link", oldpath, newpath, os.Link, func(ofd int, oname string, nfd int, nname string) error {
		return unix.Linkat(ofd, oname, nfd, nname, 0)
	})
}

// betweenTwo runs an operation on two names: plain when neither is under a
// state folder, at on their parent folders (opened beneath it) when both
// are under the same one, and refuses a pair that straddles folders.
func betweenTwo(op, oldpath, newpath string, plain func(o, n string) error, at func(ofd int, oname string, nfd int, nname string) error) error {
	s1, _, ok1 := beneath(oldpath)
	s2, _, ok2 := beneath(newpath)
	if !ok1 && !ok2 {
		return plain(oldpath, newpath)
	}
	if !ok1 || !ok2 || s1 != s2 {
		return &os.LinkError{Op: op, Old: oldpath, New: newpath, Err: errors.New("not in one state folder")}
	}
	ofd, oname, err := parent(oldpath)
	if err != nil {
		return err
	}
	defer unix.Close(ofd)
	nfd, nname, err := parent(newpath)
	if err != nil {
		return err
	}
	defer unix.Close(nfd)
	if err := at(ofd, oname, nfd, nname); err != nil {
		return &os.LinkError{Op: op, Old: oldpath, New: newpath, Err: err}
	}
	return nil
}

// LinkFile gives the open file f a second name, newpath, without copying
// it: through /proc/self/fd, so the name is the inode f has open, whatever
// has happened to its path since.
func LinkFile(f *os.File, newpath string) error {
	src := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if _, _, ok := beneath(newpath); !ok {
		return unix.Linkat(unix.AT_FDCWD, src, unix.AT_FDCWD, newpath, unix.AT_SYMLINK_FOLLOW)
	}
	nfd, nname, err := parent(newpath)
	if err != nil {
		return err
	}
	defer unix.Close(nfd)
	if err := unix.Linkat(unix.AT_FDCWD, src, nfd, nname, unix.AT_SYMLINK_FOLLOW); err != nil {
		return &os.LinkError{Op: "link", Old: f.Name(), New: newpath, Err: err}
	}
	return nil
}

// SyncDir flushes the entries of the folder at path to disk, like
// atomicfile.SyncDir.
func SyncDir(path string) error {
	if _, _, ok := beneath(path); !ok {
		return atomicfile.SyncDir(path)
	}
	fd, err := openDir(path, false, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Fsync(fd); err != nil && !errors.Is(err, unix.EINVAL) {
		return &fs.PathError{Op: "sync", Path: path, Err: err}
	}
	return nil
}
