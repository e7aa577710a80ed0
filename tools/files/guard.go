package files

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/internal/flock"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

// target is a file that write or edit is about to change, located inside a
// workspace root. Every disk operation on it goes through root, which the
// operating system confines: a symlink swapped in after locate looked cannot
// carry the write outside.
type target struct {
	abs     string      // the path the model named, resolved
	name    string      // abs as messages show it (relative to the working directory)
	real    string      // the same path with symlinks followed: the ReadState key
	root    *os.Root    // the workspace root that holds real
	rootDir string      // root's directory
	held    *flock.Held // the advisory lock, once taken
	rel     string      // real relative to root
	info    fs.FileInfo // the file as it is now; nil when it does not exist
}

// locate resolves path for a change. It refuses, with a message the model
// can act on, a path outside every workspace root, lexically or through a
// symlink, and a symlink whose target is missing.
func locate(env *tool.Env, path string) (*target, error) {
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		// Resolve cleans the slash away; without this check "notes/"
		// would become a file named notes.
		return nil, fmt.Errorf("the path ends with a slash, so it names a directory; give the path of a file, such as %sfile.txt", path)
	}
	abs, err := env.Resolve(path)
	if err != nil {
		return nil, err
	}
	namedRoot, named, err := env.WorkspaceRoot(abs)
	if err != nil {
		return nil, err
	}
	real, err := realPath(abs)
	if errors.Is(err, syscall.ENOTDIR) {
		return nil, fmt.Errorf("a parent of %s is a file, not a directory", env.Rel(abs))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot resolve %s: %w", env.Rel(abs), err)
	}
	rootDir, rel, ok := realRoot(env, real)
	if !ok {
		return nil, fmt.Errorf("%w: %s leads through a symlink to %s, outside %s; only files inside the workspace can be changed",
			tool.ErrOutsideWorkspace, abs, tool.PlainName(real), strings.Join(env.Roots, ", "))
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return nil, fmt.Errorf("cannot open workspace root %s: %w", rootDir, err)
	}
	t := &target{abs: abs, name: env.Rel(abs), real: real, root: root, rootDir: rootDir, rel: rel}
	if err := refuseGitPath(t.name, named, rel); err != nil {
		root.Close()
		return nil, err
	}
	if err := refuseApproved(env, namedRoot, named, rel); err != nil {
		root.Close()
		return nil, err
	}
	if err := t.inspect(); err != nil {
		root.Close()
		return nil, err
	}
	return t, nil
}

// inspect (re)reads the target's file information.
func (t *target) inspect() error {
	t.info = nil
	info, err := t.root.Lstat(t.rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("cannot inspect %s: %w", t.abs, err)
	case info.Mode()&fs.ModeSymlink != 0:
		// realPath followed every link that resolves, so this one
		// dangles; writing would replace the link with a file.
		link, _ := t.root.Readlink(t.rel)
		return fmt.Errorf("%s is a symlink to %s, which does not exist; name the file you mean directly", t.abs, tool.PlainName(link))
	default:
		t.info = info
	}
	return nil
}

// lock takes the target's advisory lock (a lock file under the state
// folder of its workspace, keyed by its real path, never the file itself)
// and inspects the file afresh under it. Held from the hash compare to the
// rename, it makes the read-before-edit check and the replacement one
// step: of two sessions changing one file at once, the second waits, then
// sees the first one's content and is refused. Close releases it.
func (t *target) lock() error {
	h, err := flock.AcquireTarget(workspace.At(t.rootDir).Locks(), t.real, workspace.Files{})
	if err != nil {
		return fmt.Errorf("cannot lock %s against other writers: %w", t.name, err)
	}
	t.held = h
	return t.inspect()
}

func (t *target) Close() error {
	_ = t.held.Release()
	return t.root.Close()
}

// exists reports whether the file is there; it must then be a regular file.
func (t *target) exists() (bool, error) {
	if t.info == nil {
		return false, nil
	}
	switch m := t.info.Mode(); {
	case m.IsDir():
		return true, fmt.Errorf("%s is a directory, not a file; give the path of a file inside it", t.name)
	case !m.IsRegular():
		return true, fmt.Errorf("%s is %s, not a regular file; only regular files can be changed", t.name, kindOf(m))
	case m.Perm()&0o222 == 0:
		// The atomic rename would replace the file whatever its mode;
		// a file nobody may write is a signal to respect, not bypass.
		return true, fmt.Errorf("%s is read-only (mode %v); it is left alone. If it really should change, make it writable first (chmod u+w)", t.name, m.Perm())
	}
	return true, nil
}

// realPath follows the symlinks of abs, also of a path that does not
// exist yet (see flock.RealPath).
func realPath(abs string) (string, error) { return flock.RealPath(abs) }

// realRoot finds the workspace root that really contains real (both with
// symlinks followed) and returns it with real relative to it.
func realRoot(env *tool.Env, real string) (root, rel string, ok bool) {
	for _, r := range env.Roots {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rr, real)
		if err != nil || !(rel == "." || filepath.IsLocal(rel)) {
			continue
		}
		return rr, rel, true
	}
	return "", "", false
}

// canonical is the ReadState key of an absolute path: symlinks followed, so
// a read through a link and an edit of its target meet on one record.
func canonical(abs string) string {
	if r, err := realPath(abs); err == nil {
		return r
	}
	return abs
}

// errNotRead and errChanged are the two refusals of the read-before-edit
// gate; tests tell them apart with errors.Is.
var (
	errNotRead = errors.New("not read in this session")
	errChanged = errors.New("changed since it was read")
)

// checkRead is the read-before-edit gate: the session must have read the
// file, and its content must hash the same as it did then. Hashes, not
// modification times: a write in the same second as the read, or a tool
// that restores mtimes, would slip past an mtime check.
func checkRead(env *tool.Env, t *target, now [sha256.Size]byte, size int64, verb string) error {
	rec, ok := env.Reads.Lookup(t.real)
	if !ok {
		return gateErrorf(errNotRead, "it already exists and this session has not read it. Read it first with the read tool, then %s it", verb)
	}
	if rec.Hash != now {
		return gateErrorf(errChanged, "it changed since it was read (%d bytes then, %d now), so something else edited it. Read it again and redo your change on the current content", rec.Size, size)
	}
	return nil
}

// checkSize refuses, from the stat alone, a file over limit, and one whose
// size differs from what the session read (it changed: no need to hash it
// to know). what names the limit ("edit rewrites"), verb the change.
func (t *target) checkSize(env *tool.Env, limit int64, what, verb string) error {
	size := t.info.Size()
	if size > limit {
		return fmt.Errorf("%s is %s, over the %s that %s; %s it with bash (sed, a script) instead", t.name, humanBytes(size), humanBytes(limit), what, verb)
	}
	if rec, ok := env.Reads.Lookup(t.real); ok && rec.Size != size {
		return gateErrorf(errChanged, "it changed since it was read (%d bytes then, %d now), so something else edited it. Read it again and redo your change on the current content", rec.Size, size)
	}
	return nil
}

// gateError is a refusal of the gate: its message for the model, and the
// sentinel it is for callers that test with errors.Is.
type gateError struct {
	kind error
	msg  string
}

func (e *gateError) Error() string { return e.msg }
func (e *gateError) Unwrap() error { return e.kind }

func gateErrorf(kind error, format string, args ...any) error {
	return &gateError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// hashFile returns the SHA-256 and size of the file as it is now.
func (t *target) hashFile() ([sha256.Size]byte, int64, error) {
	var sum [sha256.Size]byte
	f, err := t.root.Open(t.rel)
	if err != nil {
		return sum, 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return sum, n, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, n, nil
}

// readAll returns the whole file, refusing one larger than limit.
func (t *target) readAll(limit int64) ([]byte, error) {
	if t.info.Size() > limit {
		return nil, fmt.Errorf("%s is %s, over the %s that edit rewrites; change it with bash (sed, a script) instead", t.name, humanBytes(t.info.Size()), humanBytes(limit))
	}
	f, err := t.root.Open(t.rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One buffer of the size the stat gave (plus room to notice growth),
	// not io.ReadAll's series of doubling copies: on a 10 MB file those
	// cost as much as the read.
	buf := bytes.NewBuffer(make([]byte, 0, t.info.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew past the %s that edit rewrites while being read", t.name, humanBytes(limit))
	}
	return data, nil
}

// write replaces the file with data atomically: a temporary file in the
// same directory, written, synced and renamed over the target, then the
// directory synced so the rename itself survives a crash. Readers see the
// old content or the new, never a half-written file. An existing file keeps
// its permission bits; a new one gets 0666 less the umask, like any file a
// program creates. Missing parent directories are created.
//
// A rename gives the path a new inode, so hard links to the old file keep
// the old content; that is the price of never exposing a partial write.
func (t *target) write(data []byte) error {
	var perm fs.FileMode // a new file: the usual mode under the umask
	if t.info != nil {
		perm = t.info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	if err := atomicfile.WriteInRoot(t.root, t.rel, data, perm, workspace.At(t.rootDir).Journal()); err != nil {
		return fmt.Errorf("cannot write %s: %w", t.name, err)
	}
	return nil
}

// remember records what the session now knows of the file it just wrote,
// so a following edit needs no fresh read.
func (t *target) remember(env *tool.Env, data []byte) {
	rec := tool.ReadRecord{Path: t.real, Size: int64(len(data)), Hash: sha256.Sum256(data)}
	if fi, err := t.root.Stat(t.rel); err == nil {
		rec.ModTime = fi.ModTime()
	}
	env.Reads.Record(rec)
}

// kindOf names a non-regular file mode for messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "a regular file"
}

// humanBytes renders a size the way people read it: 512 B, 12.3 KB, 4.0 MB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTPE"[exp])
}
