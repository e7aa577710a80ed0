package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SweepAge is how old a temp file must be before a sweep may remove it. A
// writer renames its temp file within seconds; an hour leaves room for a
// large write on a slow disk, and the pid check below guards the rest.
const SweepAge = time.Hour

// sweepEvery is how often one process sweeps one folder: a sweep lists the
// folder, which should not happen on every write into a large one.
const sweepEvery = 10 * time.Minute

// swept holds, per folder, when this process last swept it.
var swept sync.Map // string -> time.Time

// Sweep removes the temp files in dir that a writer killed mid-write left
// behind: older than [SweepAge] and made by a process that is gone (see
// [TempName]). Temp names of older versions, which carry no pid, go by age
// alone. Everything else is left alone. It returns how many it removed;
// errors are ignored (a sweep is housekeeping, never a reason to fail).
func Sweep(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	return SweepEntries(entries, func(name string) (fs.FileInfo, error) {
		return os.Lstat(filepath.Join(dir, name))
	}, func(name string) error {
		return os.Remove(filepath.Join(dir, name))
	})
}

// SweepInRoot is [Sweep] of the folder dir inside root.
func SweepInRoot(root *os.Root, dir string) int {
	d, err := root.Open(dir)
	if err != nil {
		return 0
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return 0
	}
	return SweepEntries(entries, func(name string) (fs.FileInfo, error) {
		return root.Lstat(filepath.Join(dir, name))
	}, func(name string) error {
		return root.Remove(filepath.Join(dir, name))
	})
}

// SweepSometimes is [Sweep] of dir unless this process swept it lately
// (within 10 minutes): the cheap call to make on every write.
func SweepSometimes(dir string) { Sometimes(dir, func() int { return Sweep(dir) }) }

// Sometimes runs do, the sweep of the folder key, unless this process
// swept that folder lately.
func Sometimes(key string, do func() int) {
	now := time.Now()
	if last, ok := swept.Load(key); ok && now.Sub(last.(time.Time)) < sweepEvery {
		return
	}
	swept.Store(key, now)
	do()
}

// SweepEntries is [Sweep] of a folder whose entries are listed, and whose
// files are described and removed, by the given functions (those of a
// folder opened safely, say).
func SweepEntries(entries []fs.DirEntry, lstat func(string) (fs.FileInfo, error), remove func(string) error) int {
	n := 0
	for _, e := range entries {
		name := e.Name()
		pid, ok := leftover(name)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if pid > 0 && pidAlive(pid) {
			continue
		}
		fi, err := lstat(name)
		if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) < SweepAge {
			continue
		}
		if remove(name) == nil {
			n++
		}
	}
	return n
}

// Orphaned reports whether name is that of a temp file of this package
// whose writer is gone (a name without a pid does not count).
func Orphaned(name string) bool {
	pid, ok := leftover(name)
	return ok && pid > 0 && !pidAlive(pid)
}

// leftover reports whether name is a temp file of this package, and the
// pid of its writer when the name carries one (0 when it does not).
// Names: TempName's ".tmp-PID-HEX12"; before it, ".tmp-NAME-HEX12"
// (WriteInRoot) and ".tmp-DIGITS" (os.CreateTemp).
func leftover(name string) (pid int, ok bool) {
	rest, ok := strings.CutPrefix(name, TempPrefix)
	if !ok || rest == "" {
		return 0, false
	}
	if i := strings.LastIndexByte(rest, '-'); i >= 0 && isHex(rest[i+1:], 12) {
		if p, err := strconv.Atoi(rest[:i]); err == nil && p > 0 {
			return p, true
		}
		return 0, i > 0
	}
	if strings.Trim(rest, "0123456789") == "" {
		return 0, true
	}
	return 0, false
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
