package walk

import (
	"encoding/binary"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// direntBufs recycles getdents buffers across directories and workers.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDir lists a directory with getdents64, keeping the kernel's type of
// each entry so that no entry needs a stat (os.ReadDir sorts the names and
// goes through os.File, neither of which the walk needs). When budget
// allows, the directory stays open for its files (see File): the returned
// openDir, whose holds the caller sets.
func readDir(dir, prefix string, budget *dirBudget, ents []dirEntry) ([]dirEntry, *openDir, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_DIRECTORY, 0)
	if err != nil {
		return ents, nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	ents, err = readEntries(fd, dir, prefix, ents)
	if err != nil || !budget.take() {
		syscall.Close(fd)
		return ents, nil, err
	}
	return ents, &openDir{fd: fd, budget: budget}, nil
}

func readEntries(fd int, dir, prefix string, ents []dirEntry) ([]dirEntry, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return ents, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return ents, nil
		}
		ents = parseDirents(prefix, buf[:n], ents)
	}
}

// linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

func parseDirents(prefix string, b []byte, ents []dirEntry) []dirEntry {
	var path []byte
	for len(b) >= direntName {
		reclen := int(binary.NativeEndian.Uint16(b[direntReclen:]))
		if reclen < direntName || reclen > len(b) {
			break
		}
		rec := b[:reclen]
		b = b[reclen:]
		if binary.NativeEndian.Uint64(rec) == 0 { // deleted entry
			continue
		}
		name := rec[direntName:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
			continue
		}
		// One allocation per entry: the full path, with the name a
		// substring of it.
		path = append(append(path[:0], prefix...), name...)
		e := dirEntry{path: string(path)}
		e.name = e.path[len(prefix):]
		switch rec[direntType] {
		case syscall.DT_REG:
		case syscall.DT_DIR:
			e.typ = fs.ModeDir
		case syscall.DT_LNK:
			e.typ = fs.ModeSymlink
		case syscall.DT_UNKNOWN:
			fi, err := os.Lstat(e.path)
			if err != nil {
				continue
			}
			e.typ = fi.Mode().Type()
		default:
			e.typ = fs.ModeIrregular
		}
		ents = append(ents, e)
	}
	return ents
}
