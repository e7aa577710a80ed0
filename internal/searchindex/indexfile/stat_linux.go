package indexfile

import (
	"io/fs"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/indusagi/induscode/internal/walk"
)

// stampOf is the stamp of a regular file's stat; false for anything else.
func stampOf(st *unix.Stat_t) (Stamp, bool) {
	if s, dir, ok := anyStampOf(st); ok && !dir {
		return s, true
	}
	return Stamp{}, false
}

// anyStampOf stamps the stat of a regular file or a directory (dir says
// which); ok is false for anything else.
func anyStampOf(st *unix.Stat_t) (s Stamp, dir, ok bool) {
	s = Stamp{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: st.Dev}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return s, false, true
	case unix.S_IFDIR:
		return s, true, true
	}
	return s, false, false
}

// mapFile maps the first size bytes of f read-only; release unmaps them.
// The deck replaces an index file whole and never truncates it in place;
// a reader faulting on a page another process cut off is recovered (see
// survive).
func MapFile(f *os.File, size int) (mem []byte, release func(), err error) {
	if size == 0 {
		return nil, func() {}, nil
	}
	mem, err = unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return mem, func() { unix.Munmap(mem) }, nil
}

// sparse reports whether the file f, of size bytes, has a hole: its
// first hole is before its end. A file system that cannot tell reports
// the end, and the file counts as whole.
func Sparse(f *os.File, size int64) bool {
	at, err := unix.Seek(int(f.Fd()), 0, unix.SEEK_HOLE)
	return err == nil && at < size
}

// fileStamp is the stamp of an open regular file.
func FileStamp(f *os.File) (Stamp, bool) {
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return Stamp{}, false
	}
	return stampOf(&st)
}

// pathStamp is the stamp of the regular file at path (links not followed).
func PathStamp(path string) (Stamp, bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return Stamp{}, false
	}
	return stampOf(&st)
}

// supported: the stamps hold everything freshness needs.
const Supported = true

// statStamp is the stamp in a FileInfo of package workspace.
func StatStamp(fi fs.FileInfo) (Stamp, bool) {
	st, ok := fi.Sys().(*unix.Stat_t)
	if !ok {
		return Stamp{}, false
	}
	return stampOf(st)
}

// lstatAny stamps a regular file or a directory (dir says which) without
// following a link; ok is false for anything else, and the stamp is
// zero only when nothing is there.
func LstatAny(path string) (s Stamp, dir, ok bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return Stamp{}, false, false
	}
	if s, dir, ok = anyStampOf(&st); !ok && s == (Stamp{}) {
		s.Ino = 1
	}
	return s, dir, ok
}

// stamper stamps paths below one root relative to open directories: the
// file table lists files in path order, so most files are in the folder
// of the one before, and a stamp costs one fstatat of a name instead of
// a lookup of every component of a long path. No component is followed
// if it is a link (each is opened with O_NOFOLLOW). One stamper per
// goroutine; close releases its descriptors.
type Stamper struct {
	root string
	dir  string // the folder fds[len(fds)-1] is, relative; "" is the root
	fds  []int  // the root's, then one per component of dir
	ends []int  // len of dir's prefix through each component
	bad  bool   // the root could not be opened

	Files int64  // stamps taken by file
	Links uint64 // the link count of the file file stamped last

	cname []byte // the C string of the name in a call: see fstatat
	slow  int    // lookups slower than rawLimit: see call
}

func NewStamper(root string) *Stamper { return &Stamper{root: root} }

func (s *Stamper) Close() {
	for _, fd := range s.fds {
		unix.Close(fd)
	}
	s.fds, s.ends, s.dir = nil, nil, ""
}

const dirFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// enter returns a descriptor of folder dir ("" or "a/b"), opening what
// the previous folder does not share with it.
func (s *Stamper) enter(dir string) (int, error) {
	if len(s.fds) == 0 {
		if s.bad {
			return -1, unix.EBADF
		}
		fd, err := unix.Open(s.root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			s.bad = true
			return -1, err
		}
		s.fds = append(s.fds, fd)
	}
	if dir == s.dir {
		return s.fds[len(s.fds)-1], nil
	}
	// Keep the components dir shares with the folder entered before.
	keep := 0
	for _, e := range s.ends {
		if len(dir) < e || dir[:e] != s.dir[:e] || (len(dir) > e && dir[e] != '/') {
			break
		}
		keep++
	}
	for _, fd := range s.fds[keep+1:] {
		unix.Close(fd)
	}
	s.fds, s.ends = s.fds[:keep+1], s.ends[:keep]
	at := 0
	if keep > 0 {
		at = s.ends[keep-1] + 1
	}
	s.dir = dir[:max(at-1, 0)]
	for at < len(dir) {
		end := strings.IndexByte(dir[at:], '/')
		if end < 0 {
			end = len(dir)
		} else {
			end += at
		}
		fd, err := s.openat(s.fds[len(s.fds)-1], dir[at:end], dirFlags)
		if err != nil {
			return -1, err
		}
		s.fds, s.ends, s.dir = append(s.fds, fd), append(s.ends, end), dir[:end]
		at = end + 1
	}
	return s.fds[len(s.fds)-1], nil
}

// stat lstat-s the path rel ('/'-separated, below the root).
func (s *Stamper) stat(rel string, st *unix.Stat_t) error {
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	fd, err := s.enter(dir)
	if err != nil {
		return err
	}
	return s.fstatat(fd, name, st)
}

// fstatat is unix.Fstatat of name in folder dirfd, links not followed,
// and openat unix.Openat, without the copy of name into a new C string
// they make on every call: a listing makes tens of thousands, and that
// garbage cost a tenth of its time. The name is copied into s.cname.
func (s *Stamper) fstatat(dirfd int, name string, st *unix.Stat_t) error {
	if sysFstatat == 0 {
		return unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
	}
	p, err := s.cstring(name)
	if err != nil {
		return err
	}
	_, errno := s.call(uintptr(sysFstatat), uintptr(dirfd), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW)
	if errno != 0 {
		return errno
	}
	return nil
}

func (s *Stamper) openat(dirfd int, name string, flags int) (int, error) {
	p, err := s.cstring(name)
	if err != nil {
		return -1, err
	}
	fd, errno := s.call(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags), 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// A lookup the dentry cache answers takes a few microseconds; one that
// reads the disk, far more. After rawSlowCalls lookups slower than
// rawLimit the stamper stops making raw system calls. One is not enough:
// a virtual machine's processor is now and then taken away for longer.
// Tests lower rawLimit.
var rawLimit = 200 * time.Microsecond

const rawSlowCalls = 8

// call makes a lookup system call (fstatat, openat). A stat pass makes
// tens of thousands of them, each a few microseconds, and the runtime's
// bookkeeping around an ordinary system call (handing the processor over
// and taking it back, under the eye of its monitor thread) made a pass
// 20 to 35 % slower than the same calls made raw. A raw call keeps the
// goroutine's processor, which is harmless for a lookup the cache answers
// but would hold up the process's other goroutines while one waits for
// the disk: once lookups are slow, the stamper makes ordinary calls.
func (s *Stamper) call(trap, a1, a2, a3, a4 uintptr) (uintptr, unix.Errno) {
	if s.slow >= rawSlowCalls {
		r, _, errno := unix.Syscall6(trap, a1, a2, a3, a4, 0, 0)
		return r, errno
	}
	start := time.Now()
	r, _, errno := unix.RawSyscall6(trap, a1, a2, a3, a4, 0, 0)
	if time.Since(start) > rawLimit {
		s.slow++
	}
	return r, errno
}

// cstring copies name, NUL-ended, into s.cname.
func (s *Stamper) cstring(name string) (*byte, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return nil, unix.EINVAL
	}
	s.cname = append(append(s.cname[:0], name...), 0)
	return &s.cname[0], nil
}

// file is pathStamp of the file at rel; gone reports that nothing is
// there, at the name or on the way to it.
func (s *Stamper) File(rel string) (now Stamp, ok, gone bool) {
	s.Files++
	var st unix.Stat_t
	if err := s.stat(rel, &st); err != nil {
		return Stamp{}, false, err == unix.ENOENT
	}
	now, ok = stampOf(&st)
	s.Links = uint64(st.Nlink)
	return now, ok, false
}

// any is lstatAny of the file or folder at rel.
func (s *Stamper) Any(rel string) (now Stamp, dir, ok bool) {
	if rel == "." {
		return LstatAny(s.root)
	}
	var st unix.Stat_t
	if s.stat(rel, &st) != nil {
		return Stamp{}, false, false
	}
	return anyStampOf(&st)
}

// entries lists folder rel ("." is the root) as it is now, unsorted,
// opening it below the root without following a link.
func (s *Stamper) Entries(rel string) ([]fs.DirEntry, error) {
	if rel == "." {
		rel = ""
	}
	at, err := s.enter(rel)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Openat(at, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	return f.ReadDir(-1)
}

// readWalked reads the whole regular file f, no larger than MaxFileSize,
// into buf, with the stamp taken before the read. A change during the
// read moves the file's times or size past the stamp, so no index
// vouches for what was read then: reading the bytes the stamp counts is
// enough, without a read more to see the end. It keeps to the bare
// descriptor: an os.File would register it with the poller, which a
// build pays for on every file.
func ReadWalked(f walk.File, buf *[]byte) ([]byte, Stamp, bool) {
	fd, err := f.OpenFD(unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC)
	if err != nil {
		return nil, Stamp{}, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil, Stamp{}, false
	}
	s, ok := stampOf(&st)
	if !ok || s.Size > MaxFileSize {
		return nil, s, false
	}
	size := int(s.Size)
	if cap(*buf) < size {
		*buf = make([]byte, size)
	}
	b := (*buf)[:size]
	for n := 0; n < size; {
		m, err := unix.Read(fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || m == 0 {
			return nil, s, false // failed, or shrank since its stamp
		}
		n += m
	}
	return b, s, true
}
