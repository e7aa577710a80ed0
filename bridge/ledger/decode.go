package ledger

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/indusagi/induscode/tool"
)

// lineDecoder decodes log lines. Replay must be fast (a 100,000-line log in
// well under 300 ms), and encoding/json spends most of that validating the
// same tool descriptions again and again: a log enrolls the same few hundred
// tools thousands of times. So lines in exactly the shape [File.Append]
// writes take a fast path that scans the fixed fields by hand and looks the
// raw "tool" object up in a table of descriptions already decoded; the first
// occurrence of a description, and any line in another shape (edited by
// hand, written by another program), is decoded by encoding/json in full.
type lineDecoder struct {
	tools   map[string]*Recorded // raw "tool" object bytes -> its capability
	keys    map[string]Key       // keys seen, which repeat with their tools
	strings map[string]string    // servers and times, which repeat
}

func newLineDecoder() *lineDecoder {
	return &lineDecoder{tools: make(map[string]*Recorded), keys: make(map[string]Key), strings: make(map[string]string)}
}

// key returns b as a Key if it is well formed, sharing one copy per key.
func (d *lineDecoder) key(b []byte) (Key, bool) {
	if k, ok := d.keys[string(b)]; ok {
		return k, true
	}
	k, ok := ParseKey(string(b))
	if ok {
		d.keys[string(k)] = k
	}
	return k, ok
}

// intern returns b as a string, sharing one copy among equal strings.
func (d *lineDecoder) intern(b []byte) string {
	if s, ok := d.strings[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.strings) < maxInterned {
		d.strings[s] = s
	}
	return s
}

// maxInterned bounds the intern table: servers are few, but times change
// every millisecond, and a log of distinct times gains nothing from it.
const maxInterned = 4096

func (d *lineDecoder) decode(line []byte) (Entry, error) {
	if e, ok := d.fast(line); ok {
		return e, nil
	}
	var e Entry
	err := json.Unmarshal(line, &e)
	return e, err
}

// fast decodes {"op":OP,"key":K,"server":S,"seq":N,"at":A[,"tool":{…}]}
// with plain strings (no escapes). ok is false when line has another shape.
func (d *lineDecoder) fast(line []byte) (e Entry, ok bool) {
	p := scanner{b: line}
	var op, key, server, at []byte
	var seq uint64
	if !p.lit(`{"op":`) || !p.str(&op) ||
		!p.lit(`,"key":`) || !p.str(&key) ||
		!p.lit(`,"server":`) || !p.str(&server) ||
		!p.lit(`,"seq":`) || !p.uint(&seq) ||
		!p.lit(`,"at":`) || !p.str(&at) {
		return Entry{}, false
	}
	if err := e.Op.UnmarshalText(op); err != nil || seq == 0 {
		return Entry{}, false
	}
	k, valid := d.key(key)
	if !valid {
		return Entry{}, false
	}
	e.Key, e.Server, e.Seq, e.At = k, d.intern(server), seq, d.intern(at)
	switch e.Op {
	case Enroll:
		if !p.lit(`,"tool":`) {
			return Entry{}, false
		}
		// The tool object runs to the line's closing brace. It is not
		// scanned: a description seen before is byte-identical to one
		// encoding/json validated, and a new one is validated now.
		if len(line)-p.i < 3 || line[p.i] != '{' || line[len(line)-1] != '}' {
			return Entry{}, false
		}
		raw := line[p.i : len(line)-1]
		rec, seen := d.tools[string(raw)]
		if !seen {
			var w wireTool
			if err := json.Unmarshal(raw, &w); err != nil || w.Name == "" {
				return Entry{}, false
			}
			rec = &Recorded{spec: w.spec(), tool: w.Origin}
			d.tools[string(raw)] = rec
		}
		if rec.server != e.Server {
			// The description is shared; the server is per line.
			rec = &Recorded{spec: rec.spec, server: e.Server, tool: rec.tool}
		}
		e.Capability = rec
	case Retire:
		if !p.lit(`}`) || p.i != len(line) {
			return Entry{}, false
		}
	}
	return e, true
}

// scanner reads the fixed shape of a log line.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) lit(want string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(want)) {
		return false
	}
	s.i += len(want)
	return true
}

// str reads a string without escapes or control characters.
func (s *scanner) str(out *[]byte) bool {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			*out = s.b[s.i+1 : j]
			s.i = j + 1
			return true
		case c == '\\' || c < 0x20:
			return false
		}
	}
	return false
}

func (s *scanner) uint(out *uint64) bool {
	j := s.i
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		j++
	}
	n, err := strconv.ParseUint(string(s.b[s.i:j]), 10, 64)
	if err != nil {
		return false
	}
	*out, s.i = n, j
	return true
}

func (w *wireTool) spec() tool.Spec {
	return tool.Spec{Name: w.Name, Label: w.Label, Description: w.Description,
		InputSchema: w.InputSchema, ReadOnly: w.ReadOnly, OutputSchema: w.OutputSchema}
}
