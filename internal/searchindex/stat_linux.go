package searchindex

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openNoFollow opens a file to index without following a link planted
// in its place since the walk listed it.
func openNoFollow(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

func stampOf(st *unix.Stat_t) (stamp, bool) {
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return stamp{}, false
	}
	return stamp{
		size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		ino: st.Ino, dev: st.Dev,
	}, true
}

// fileStamp is the stamp of an open regular file.
func fileStamp(f *os.File) (stamp, bool) {
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return stamp{}, false
	}
	return stampOf(&st)
}

// pathStamp is the stamp of the regular file at path (links not followed).
func pathStamp(path string) (stamp, bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return stamp{}, false
	}
	return stampOf(&st)
}

// supported: the stamps hold everything freshness needs.
const supported = true

// statStamp is the stamp in a FileInfo of package workspace.
func statStamp(fi fs.FileInfo) (stamp, bool) {
	st, ok := fi.Sys().(*unix.Stat_t)
	if !ok {
		return stamp{}, false
	}
	return stampOf(st)
}

// lstatAny stamps a regular file or a directory (dir says which) without
// following a link; ok is false for anything else, and the stamp is
// zero only when nothing is there.
func lstatAny(path string) (s stamp, dir, ok bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return stamp{}, false, false
	}
	s = stamp{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino, dev: st.Dev}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return s, false, true
	case unix.S_IFDIR:
		return s, true, true
	}
	if s == (stamp{}) {
		s.ino = 1
	}
	return s, false, false
}
