package files

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// openRead opens a regular file for reading with as few system calls as
// the kernel allows. os.Open would also try (and, for a regular file,
// fail) to register the descriptor with the network poller and switch it
// to non-blocking mode and back: four more calls, which on a small file
// are a large part of a read's cost.
func openRead(abs string) (*os.File, error) {
	for {
		fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: abs, Err: err}
		}
		return os.NewFile(uintptr(fd), abs), nil
	}
}

// canonicalOpen is canonical(abs) for a file open as f, which a stat of
// abs described as fi: the kernel's name for the descriptor (one readlink)
// rather than a lstat of every component of the path. It falls back to
// canonical when /proc is not mounted or the file was unlinked meanwhile.
//
// The answer is remembered for abs with the file's device and inode: a
// readlink in /proc costs more than any other system call of a small read,
// and an agent reads the same files again and again. A symlink on the way
// that now leads elsewhere leads to another inode, which misses.
func canonicalOpen(f *os.File, abs string, fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok {
		if p, hit := canonicals.get(abs, st.Dev, st.Ino); hit {
			return p
		}
	}
	p := readCanonical(f, abs)
	if ok {
		canonicals.put(abs, st.Dev, st.Ino, p)
	}
	return p
}

func readCanonical(f *os.File, abs string) string {
	sc, err := f.SyscallConn()
	if err == nil {
		var p string
		var rerr error
		if err = sc.Control(func(fd uintptr) {
			p, rerr = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
		}); err == nil && rerr == nil && filepath.IsAbs(p) && !strings.HasSuffix(p, " (deleted)") {
			return p
		}
	}
	return canonical(abs)
}

// canonicalCache maps a path to the canonical path of the file it named,
// with that file's identity. It is bounded: when full it starts over.
type canonicalCache struct {
	mu sync.Mutex
	m  map[string]canonicalEntry
}

type canonicalEntry struct {
	dev, ino uint64
	path     string
}

const maxCanonicals = 4096

var canonicals = canonicalCache{m: make(map[string]canonicalEntry)}

func (c *canonicalCache) get(abs string, dev, ino uint64) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[abs]
	if !ok || e.dev != dev || e.ino != ino {
		return "", false
	}
	return e.path, true
}

func (c *canonicalCache) put(abs string, dev, ino uint64, path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCanonicals {
		clear(c.m)
	}
	c.m[abs] = canonicalEntry{dev: dev, ino: ino, path: path}
}
