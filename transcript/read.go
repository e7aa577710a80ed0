package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/indusagi/induscode/workspace"
)

// maxLine bounds one line: a message with a large tool result.
const maxLine = 64 << 20

// signing is what the signatures of a whole file say.
type signing int

const (
	allSigned  signing = iota // every line verifies (or there is none)
	noneSigned                // no line is signed: written before signing, or planted
)

// read reads the whole conversation and checks it.
func (t *Transcript) read() ([]Line, signing, error) {
	f, err := workspace.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("no conversation %s in this workspace (indusr transcripts lists them)", t.id)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("transcript %s: %w", t.id, err)
	}
	defer f.Close()
	return readLines(f.Name(), bufio.NewReaderSize(f, 64<<10), t.key, t.id)
}

// readLines reads the lines of conversation id from r. A last stretch
// without a newline is a write a crash cut short and is passed over;
// anything else that is wrong is an error naming the line: a line that
// does not decode, a first line that is not the conversation's header, a
// signature that does not verify, or unsigned lines among signed ones.
func readLines(name string, r *bufio.Reader, key []byte, id string) ([]Line, signing, error) {
	var out []Line
	var long []byte
	nSigned, nUnsigned := 0, 0
	for n := 1; ; {
		b, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(b) > maxLine {
				return nil, 0, fmt.Errorf("%s line %d is longer than %d MB; the file is damaged", name, n, maxLine>>20)
			}
			long = append(long, b...)
			continue
		}
		if err == io.EOF {
			break // a torn last line, or the end
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", name, err)
		}
		if long != nil {
			b = append(long, b...)
			long = nil
		}
		b = b[:len(b)-1]
		var l Line
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, 0, fmt.Errorf("%s line %d is not a transcript line (%v); the file is damaged", name, n, err)
		}
		if n == 1 && (l.Kind != Header || l.ID != id) {
			return nil, 0, fmt.Errorf("%s does not begin with the header of conversation %s; the file is damaged", name, id)
		}
		if l.MAC == "" {
			nUnsigned++
		} else if !verified(key, id, b) {
			return nil, 0, fmt.Errorf("%s line %d is not signed by your indusr (copied from elsewhere, or changed); it is not resumed", name, n)
		} else {
			nSigned++
		}
		if nSigned > 0 && nUnsigned > 0 {
			return nil, 0, fmt.Errorf("%s line %d: signed and unsigned lines are mixed; the file was changed by something other than your indusr", name, n)
		}
		out = append(out, l)
		n++
	}
	if nUnsigned > 0 {
		return out, noneSigned, nil
	}
	return out, allSigned, nil
}

// repairTail cuts off a last line that a crash left without its newline,
// so what is appended next starts a line of its own.
func repairTail(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	end, err := lastNewline(f, fi.Size())
	if err != nil || end == fi.Size() {
		return err
	}
	return f.Truncate(end)
}

// lastNewline is the offset just past the last newline before size in f
// (0 when there is none).
func lastNewline(f *os.File, size int64) (int64, error) {
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	for off := size; off > 0; {
		n := min(off, chunk)
		off -= n
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1, nil
		}
		if size-off > maxLine {
			break // no line is this long: the whole tail is damage
		}
	}
	return 0, nil
}

// lastSigned reads only the first and the last whole line of the
// conversation id at path and returns the last one's time when both are
// the conversation's and signed with key, and whether the header links it
// to a parent's (a subagent's conversation).
func lastSigned(key []byte, id, path string) (last time.Time, child bool, err error) {
	f, err := workspace.Open(path)
	if err != nil {
		return time.Time{}, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return time.Time{}, false, err
	}
	end, err := lastNewline(f, fi.Size())
	if err != nil || end == 0 {
		return time.Time{}, false, fmt.Errorf("%s holds no whole line", path)
	}
	// A header is a few hundred bytes; one that does not fit the buffer
	// is not one indusr wrote.
	head, err := bufio.NewReaderSize(io.NewSectionReader(f, 0, end), 64<<10).ReadSlice('\n')
	if err != nil {
		return time.Time{}, false, fmt.Errorf("%s: first line: %v", path, err)
	}
	var h Line
	if json.Unmarshal(head[:len(head)-1], &h) != nil || h.Kind != Header || h.ID != id || !verified(key, id, head[:len(head)-1]) {
		return time.Time{}, false, fmt.Errorf("%s does not begin with a signed header", path)
	}
	start, err := lastNewline(f, end-1)
	if err != nil {
		return time.Time{}, false, err
	}
	if end-1-start > maxLine {
		return time.Time{}, false, fmt.Errorf("%s: the last line is too long", path)
	}
	tail := make([]byte, end-1-start)
	if _, err := f.ReadAt(tail, start); err != nil {
		return time.Time{}, false, err
	}
	var l Line
	if json.Unmarshal(tail, &l) != nil || !verified(key, id, tail) {
		return time.Time{}, false, fmt.Errorf("%s: the last line is not signed by your indusr", path)
	}
	return l.Time, h.Parent != nil, nil
}
