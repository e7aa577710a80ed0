package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/indusagi/induscode/internal/procs"

	"github.com/indusagi/induscode/internal/flock"
	"github.com/indusagi/induscode/workspace"
)

// maxLogBytes bounds the log file read into memory on replay. A log of a
// million events with typical schemas is ~300 MB; past this size something
// is wrong and replay refuses rather than exhausting memory.
const maxLogBytes = 1 << 30

// File is a ledger log on disk: one JSON entry per line, appended in
// batches, each batch synced before Append returns. It is safe for
// concurrent use.
type File struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// ErrLocked is returned by OpenFile when another File (in this process or
// another) has the log open: two writers would interleave their sequences.
var ErrLocked = errors.New("the log is in use by another indusr session")

// OpenFile opens (creating it and its directory if needed) the log at path
// for appending and replays what it holds. It holds an exclusive lock on the
// log until Close. A torn last line, the trace of a
// crash during a write, is ignored and cut off so the next batch starts on a
// clean line; any other malformed line is skipped. Both are reported in
// warnings; neither is fatal. err is for a file that cannot be opened or
// read at all.
func OpenFile(path string) (f *File, entries []Entry, warnings []string, err error) {
	if err := workspace.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, nil, fmt.Errorf("ledger log: %w", err)
	}
	osf, err := workspace.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("ledger log: %w", err)
	}
	if err := flock.TryLock(osf); err != nil {
		osf.Close()
		if errors.Is(err, flock.ErrLocked) {
			err = ErrLocked
		}
		return nil, nil, nil, fmt.Errorf("ledger log %s: %w", path, err)
	}
	data, err := readAll(osf)
	if err != nil {
		osf.Close()
		return nil, nil, nil, fmt.Errorf("ledger log %s: %w", path, err)
	}
	entries, complete, warnings := parseLog(data, path)
	if complete < len(data) {
		if err := osf.Truncate(int64(complete)); err != nil {
			osf.Close()
			return nil, nil, nil, fmt.Errorf("ledger log %s: cutting off a torn last line: %w", path, err)
		}
	}
	return &File{f: osf, path: path}, entries, warnings, nil
}

// ReadLog replays the log at path without changing it. A missing file is an
// empty log. Malformed lines are skipped and reported in warnings.
func ReadLog(path string) (entries []Entry, warnings []string, err error) {
	osf, err := workspace.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("ledger log: %w", err)
	}
	defer osf.Close()
	data, err := readAll(osf)
	if err != nil {
		return nil, nil, fmt.Errorf("ledger log %s: %w", path, err)
	}
	entries, _, warnings = parseLog(data, path)
	return entries, warnings, nil
}

func readAll(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxLogBytes {
		return nil, fmt.Errorf("log is %d bytes, over the %d-byte replay limit; move it aside to start a new one", fi.Size(), maxLogBytes)
	}
	// Read exactly the size stat saw; a writer appending meanwhile adds
	// whole lines after it, which the next replay sees.
	buf := make([]byte, fi.Size())
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF {
		err = nil // truncated meanwhile: parse what is there
	}
	return buf[:n], err
}

// parseLog decodes the lines of data. complete is the length of the prefix
// made of whole lines; bytes after it are a torn line. A large log is split
// at line boundaries and its parts decoded in parallel.
func parseLog(data []byte, path string) (entries []Entry, complete int, warnings []string) {
	complete = bytes.LastIndexByte(data, '\n') + 1
	parts := splitLines(data[:complete], procs.Default())
	results := make([]parsed, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = parseLines(p)
		}()
	}
	wg.Wait()
	n, line := 0, 0
	for _, r := range results {
		n += len(r.entries)
	}
	entries = make([]Entry, 0, n)
	for _, r := range results {
		entries = append(entries, r.entries...)
		for _, b := range r.bad {
			warnings = append(warnings, fmt.Sprintf("%s:%d: skipped a malformed entry: %v", path, line+b.line, b.err))
		}
		line += r.lines
	}
	if complete < len(data) {
		warnings = append(warnings, fmt.Sprintf("%s: ignored a torn last line (%d bytes without a newline), the trace of an interrupted write", path, len(data)-complete))
	}
	return entries, complete, warnings
}

// minParallelLog is the log size from which replay decodes in parallel;
// below it the goroutines cost more than they save.
const minParallelLog = 1 << 20

// splitLines cuts data (whole lines) into at most n parts at line breaks.
func splitLines(data []byte, n int) [][]byte {
	if len(data) < minParallelLog || n < 2 {
		return [][]byte{data}
	}
	var parts [][]byte
	for i := n; i > 1; i-- {
		cut := len(data) / i
		nl := bytes.IndexByte(data[cut:], '\n')
		if nl < 0 {
			break
		}
		parts = append(parts, data[:cut+nl+1])
		data = data[cut+nl+1:]
	}
	return append(parts, data)
}

type parsed struct {
	entries []Entry
	lines   int
	bad     []badLine
}

type badLine struct {
	line int
	err  error
}

// parseLines decodes whole lines; line numbers in bad count from 1.
func parseLines(data []byte) parsed {
	r := parsed{entries: make([]Entry, 0, bytes.Count(data, []byte{'\n'}))}
	dec := newLineDecoder()
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		text := bytes.TrimSpace(data[:nl])
		data = data[nl+1:]
		r.lines++
		if len(text) == 0 {
			continue
		}
		e, err := dec.decode(text)
		if err != nil {
			r.bad = append(r.bad, badLine{r.lines, err})
			continue
		}
		r.entries = append(r.entries, e)
	}
	return r
}

// Path returns the file's path.
func (f *File) Path() string { return f.path }

// Append writes entries as one batch and syncs the file. The batch is one
// write, so a crash leaves at most a torn last line.
func (f *File) Append(entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	return f.write(entries, false)
}

// write encodes entries and writes them in one batch, first emptying the
// file when truncate is set, then syncs.
func (f *File) write(entries []Entry, truncate bool) error {
	buf, err := encode(entries)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return fmt.Errorf("ledger log %s: closed", f.path)
	}
	if truncate {
		if err := f.f.Truncate(0); err != nil {
			return fmt.Errorf("ledger log %s: %w", f.path, err)
		}
	}
	if _, err := f.f.Write(buf.Bytes()); err != nil { // O_APPEND: from the current end
		return fmt.Errorf("ledger log %s: %w", f.path, err)
	}
	if err := f.f.Sync(); err != nil {
		return fmt.Errorf("ledger log %s: sync: %w", f.path, err)
	}
	return nil
}

// Rewrite replaces the whole log with entries, keeping the lock: hosts
// compact a long log this way (see [Ledger.Compact]). A crash during the
// rewrite leaves a prefix of entries; that is safe to replay: a tool it
// lost is enrolled again by the next mount of its server.
func (f *File) Rewrite(entries []Entry) error { return f.write(entries, true) }

func encode(entries []Entry) (*bytes.Buffer, error) {
	var buf bytes.Buffer
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("ledger log: encoding entry %d: %w", e.Seq, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return &buf, nil
}

// Close closes the file. Appending after Close is an error.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return nil
	}
	// Unlock first: a process forked meanwhile (to start a server) shares
	// the open file until it execs, and closing alone would leave it the
	// lock.
	_ = flock.Unlock(f.f)
	err := f.f.Close()
	f.f = nil
	return err
}
